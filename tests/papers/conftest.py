"""Fixtures for the outside-source clients: each service's stand-in on 127.0.0.1 (never the network),
timed by one virtual clock that the client's pacer sleeps on, so pacing and Retry-After are checked
without waiting."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.sources.arxiv import ArxivClient
from standin.arxiv import ArxivStandin
from standin.crossref import CrossrefStandin
from standin.datacite import DataCiteStandin
from standin.huggingface import HuggingFaceStandin
from standin.openreview import OpenReviewStandin
from standin.semantic_scholar import SemanticScholarStandin
from tests.papers.helpers import VirtualTimer

S2_KEY = "s2-test-key-0123456789abcdef"


@pytest.fixture
def timer() -> VirtualTimer:
    """The virtual clock a test's clients and stand-ins share."""
    return VirtualTimer()


@pytest.fixture
async def semantic_scholar(timer: VirtualTimer) -> AsyncIterator[SemanticScholarStandin]:
    """Semantic Scholar's Graph API stand-in, knowing the key S2_KEY and no papers yet."""
    async with SemanticScholarStandin(clock=timer.monotonic, api_keys={S2_KEY}) as standin:
        yield standin


@pytest.fixture
async def huggingface(timer: VirtualTimer) -> AsyncIterator[HuggingFaceStandin]:
    """Hugging Face Papers' stand-in, indexing no papers yet."""
    async with HuggingFaceStandin(clock=timer.monotonic) as standin:
        yield standin


@pytest.fixture
async def openreview(timer: VirtualTimer) -> AsyncIterator[OpenReviewStandin]:
    """OpenReview API v2's stand-in, holding no forums yet."""
    async with OpenReviewStandin(clock=timer.monotonic, wall=timer.wall) as standin:
        yield standin


@pytest.fixture
async def crossref(timer: VirtualTimer) -> AsyncIterator[CrossrefStandin]:
    """Crossref's works API stand-in, holding no DOIs yet."""
    async with CrossrefStandin(clock=timer.monotonic) as standin:
        yield standin


@pytest.fixture
async def datacite(timer: VirtualTimer) -> AsyncIterator[DataCiteStandin]:
    """DataCite's DOI API stand-in, holding no DOIs yet."""
    async with DataCiteStandin(clock=timer.monotonic) as standin:
        yield standin


@pytest.fixture
async def paced_arxiv(timer: VirtualTimer) -> AsyncIterator[ArxivStandin]:
    """arXiv's stand-in enforcing one request per 3 s on the virtual clock."""
    standin = ArxivStandin(clock=timer.monotonic)
    standin.enforce_rate_limit = True
    await standin.start()
    try:
        yield standin
    finally:
        await standin.stop()


@pytest.fixture
async def arxiv_client(paced_arxiv: ArxivStandin, timer: VirtualTimer) -> AsyncIterator[ArxivClient]:
    """An arXiv client on the paced stand-in (knowing no papers until a test adds them) and the virtual clock."""
    client = ArxivClient(paced_arxiv.url, timer=timer)
    try:
        yield client
    finally:
        await client.close()
