"""The arXiv client against the local arXiv stand-in: parsing, unknown ids, 429, slow, down."""

from __future__ import annotations

import pytest

from bot.arxiv import ArxivClient, ArxivUnavailable, parse_atom
from standin.arxiv import ArxivStandin, error_entry
from tests.suggestions.conftest import TAU_BENCH


async def test_fetches_and_cleans_metadata(arxiv: ArxivStandin) -> None:
    client = ArxivClient(arxiv.url)
    try:
        meta = await client.fetch("2406.12045")
    finally:
        await client.close()
    assert meta is not None
    assert meta.title == TAU_BENCH  # arXiv's line breaks in titles are folded
    assert meta.authors == ("Shunyu Yao", "Noah Shinn")
    assert meta.abstract == "We propose tau-bench."
    assert meta.published == "2024-06-17"
    assert arxiv.requests == ["2406.12045"]


@pytest.mark.parametrize("arxiv_id", ["2406.99999", "hep-th/9901001", "2406.1204"])
async def test_unknown_ids_are_none(arxiv: ArxivStandin, arxiv_id: str) -> None:
    client = ArxivClient(arxiv.url)
    try:
        assert await client.fetch(arxiv_id) is None
    finally:
        await client.close()


def test_error_entry_and_garbage() -> None:
    feed = f'<feed xmlns="http://www.w3.org/2005/Atom">{error_entry("abc")}</feed>'
    assert parse_atom(feed, "abc") is None
    assert parse_atom('<feed xmlns="http://www.w3.org/2005/Atom"></feed>', "2401.00001") is None
    with pytest.raises(ArxivUnavailable):
        parse_atom("<html>proxy error</html>", "2401.00001")
    with pytest.raises(ArxivUnavailable):
        parse_atom("not xml at all", "2401.00001")


async def test_429_retry_after_is_honoured(arxiv: ArxivStandin) -> None:
    waits: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        waits.append(seconds)

    client = ArxivClient(arxiv.url, sleep=fake_sleep)
    arxiv.rate_limit_next(1, retry_after=3)
    try:
        meta = await client.fetch("2406.12045")
    finally:
        await client.close()
    assert meta is not None
    assert len(arxiv.requests) == 2
    assert waits
    assert 2.5 < waits[0] <= 3


async def test_long_retry_after_refuses_without_calling_again(arxiv: ArxivStandin) -> None:
    client = ArxivClient(arxiv.url, max_retry_after=5)
    arxiv.rate_limit_next(1, retry_after=600)
    try:
        with pytest.raises(ArxivUnavailable, match="wait"):
            await client.fetch("2406.12045")
        assert client.blocked_for > 500
        with pytest.raises(ArxivUnavailable):
            await client.fetch("2406.12045")
    finally:
        await client.close()
    assert len(arxiv.requests) == 1  # the second call never reached arXiv


async def test_down_is_retried_once_then_unavailable(arxiv: ArxivStandin) -> None:
    arxiv.mode = "down"
    client = ArxivClient(
        arxiv.url, min_interval=0.0
    )  # the retry's 3 s pacing: tests/papers/test_arxiv_search.py
    try:
        with pytest.raises(ArxivUnavailable, match="503"):
            await client.fetch("2406.12045")
    finally:
        await client.close()
    assert len(arxiv.requests) == 2


async def test_slow_times_out(arxiv: ArxivStandin) -> None:
    arxiv.mode, arxiv.delay = "slow", 2.0
    client = ArxivClient(arxiv.url, timeout=0.2, min_interval=0.0)
    try:
        with pytest.raises(ArxivUnavailable, match="no answer within"):
            await client.fetch("2406.12045")
    finally:
        await client.close()
    assert len(arxiv.requests) == 2


async def test_connection_refused_is_unavailable() -> None:
    client = ArxivClient("http://127.0.0.1:9/api/query", timeout=1, min_interval=0.0)
    try:
        with pytest.raises(ArxivUnavailable):
            await client.fetch("2406.12045")
    finally:
        await client.close()
