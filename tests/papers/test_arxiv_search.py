"""arXiv's title search (ti:"…") and the client's one request per 3 s, against the arXiv stand-in."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.arxiv import ArxivClient, ArxivUnavailable, parse_search
from bot.sources import clean
from bot.sources.http import SourceUnavailable
from standin.arxiv import ArxivStandin, error_entry
from standin.http_service import hostile_text
from tests.papers.helpers import VirtualTimer, assert_clean, gaps

TMAX = "TMax: Scaling Terminal Agents with Maximal Environments"


def seed(standin: ArxivStandin) -> None:
    standin.add(
        "2601.00001", TMAX, ["Hamish Ivison", "Ada Lovelace"], "Terminal agents.", "2026-01-05T10:00:00Z"
    )
    standin.add(
        "2602.00002", "Terminal-World: A Benchmark of Shell Tasks", ["B. Person"], "", "2025-12-01T10:00:00Z"
    )
    standin.add("2603.00003", "T1: One Model for Every Terminal", [], "", "2025-11-01T10:00:00Z")


@pytest.fixture
async def client(paced_arxiv: ArxivStandin, timer: VirtualTimer) -> AsyncIterator[ArxivClient]:
    seed(paced_arxiv)
    arxiv = ArxivClient(paced_arxiv.url, sleep=timer.sleep, monotonic=timer.monotonic)
    yield arxiv
    await arxiv.close()


async def test_title_search_candidates(client: ArxivClient, paced_arxiv: ArxivStandin) -> None:
    (tmax,) = await client.search_titles("TMax")
    assert (tmax.source, tmax.source_id, tmax.arxiv_id, tmax.title) == (
        "arxiv",
        "2601.00001",
        "2601.00001",
        TMAX,
    )
    assert (tmax.authors, tmax.year, tmax.venue, tmax.score) == (
        ("Hamish Ivison", "Ada Lovelace"),
        2026,
        None,
        None,
    )
    assert tmax.url == "https://arxiv.org/abs/2601.00001"
    assert paced_arxiv.requests == ['ti:"TMax"']

    terminal = await client.search_titles('"Terminal" (world)!', limit=5)
    assert [c.arxiv_id for c in terminal] == ["2602.00002"]  # the phrase "Terminal world"
    assert paced_arxiv.requests[-1] == 'ti:"Terminal world"'
    assert [c.arxiv_id for c in await client.search_titles("terminal", limit=2)] == [
        "2601.00001",
        "2602.00002",
    ]
    assert await client.search_titles("no such paper") == []
    assert await client.search_titles("  ?!  ") == []  # nothing to ask: not sent
    assert len(paced_arxiv.requests) == 4


async def test_one_request_per_three_seconds(
    client: ArxivClient, paced_arxiv: ArxivStandin, timer: VirtualTimer
) -> None:
    await client.search_titles("TMax")
    await client.fetch("2601.00001")
    await client.search_titles("Terminal")
    assert paced_arxiv.refused_too_fast == []
    assert min(gaps(paced_arxiv.request_times)) >= 3.0
    assert timer.elapsed == pytest.approx(6.0)


async def test_the_limit_is_modelled_so_an_unpaced_client_is_refused(
    paced_arxiv: ArxivStandin, timer: VirtualTimer
) -> None:
    seed(paced_arxiv)
    unpaced = ArxivClient(paced_arxiv.url, sleep=timer.sleep, monotonic=timer.monotonic, min_interval=0.0)
    try:
        await unpaced.search_titles("TMax")
        assert await unpaced.fetch("2601.00001") is not None  # refused once (429), then waited out
    finally:
        await unpaced.close()
    assert len(paced_arxiv.refused_too_fast) == 1


async def test_unavailable_is_a_source_unavailable(paced_arxiv: ArxivStandin, timer: VirtualTimer) -> None:
    paced_arxiv.mode = "down"
    client = ArxivClient(paced_arxiv.url, sleep=timer.sleep, monotonic=timer.monotonic)
    try:
        with pytest.raises(SourceUnavailable) as info:
            await client.search_titles("TMax")
    finally:
        await client.close()
    assert isinstance(info.value, ArxivUnavailable)
    assert info.value.source == "arxiv"


def test_search_feed_errors_and_garbage() -> None:
    feed = f'<feed xmlns="http://www.w3.org/2005/Atom">{error_entry("ti:")}</feed>'
    assert parse_search(feed) == []
    with pytest.raises(ArxivUnavailable):
        parse_search("<html>proxy error</html>")


def xml_safe(text: str) -> str:
    """What arXiv can send at all: XML 1.0 has no C0 control characters but tab and newline."""
    return "".join(c for c in text if c >= " " or c in "\t\n")


async def test_hostile_titles_are_cut(client: ArxivClient, paced_arxiv: ArxivStandin) -> None:
    paced_arxiv.add("2604.00004", xml_safe("Evil " + hostile_text(10_000)), [xml_safe(hostile_text(400))])
    (evil,) = await client.search_titles("Evil")
    assert_clean(evil.title, clean.TITLE_MAX)
    assert len(evil.authors[0]) <= clean.NAME_MAX
