"""The arXiv client against its stand-in: metadata and title search read from arXiv's full Atom entries,
unknown and old-style ids, its error entry, its bare throttle (429 or 200 "Rate exceeded."), one request
per 3 s, and the pace shared by two processes on one store (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.sources import clean
from bot.sources.arxiv import BARE_THROTTLE_WAIT, ArxivClient
from bot.sources.http import SourceClient, SourceUnavailable
from bot.sources.pace import RateLimit, StoreTurns
from standin.arxiv import ArxivStandin
from standin.http_service import hostile_text
from tests.papers.helpers import VirtualTimer, assert_clean, gaps

TMAX = "TMax: Scaling Terminal Agents with Maximal Environments"
TAU_BENCH = "Tau-Bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains"


def seed(standin: ArxivStandin) -> None:
    standin.add(
        "2406.12045", TAU_BENCH, ["Shunyu Yao", "Noah Shinn"], "We propose tau-bench.", "2024-06-17T17:42:00Z"
    )
    standin.add(
        "2601.00001", TMAX, ["Hamish Ivison", "Ada Lovelace"], "Terminal agents.", "2026-01-05T10:00:00Z"
    )
    standin.add(
        "2602.00002", "Terminal-World: A Benchmark of Shell Tasks", ["B. Person"], "", "2025-12-01T10:00:00Z"
    )
    standin.add("math.GT/0309136", "Knots and their invariants", ["C. Knot"], "", "2003-09-08T10:00:00Z")


@pytest.fixture
async def client(paced_arxiv: ArxivStandin, timer: VirtualTimer) -> AsyncIterator[ArxivClient]:
    seed(paced_arxiv)
    arxiv = ArxivClient(paced_arxiv.url, timer=timer, timeout=2.0)
    yield arxiv
    await arxiv.close()


async def test_metadata_from_the_full_entry(client: ArxivClient, paced_arxiv: ArxivStandin) -> None:
    meta = await client.fetch("2406.12045")
    assert meta is not None
    assert meta.title == TAU_BENCH  # arXiv's line breaks in titles are folded
    assert meta.authors == ("Shunyu Yao", "Noah Shinn")
    assert (meta.abstract, meta.published) == ("We propose tau-bench.", "2024-06-17")
    assert paced_arxiv.requests == ["2406.12045"]


@pytest.mark.parametrize("arxiv_id", ["2406.99999", "hep-th/9901001"])
async def test_unknown_ids_are_none(client: ArxivClient, arxiv_id: str) -> None:
    assert await client.fetch(arxiv_id) is None


async def test_an_old_style_id_is_read_as_arxiv_writes_it(client: ArxivClient) -> None:
    """arXiv answers math.GT/0309136 under math/0309136: the id the bot stores (bot/papers.py)."""
    meta = await client.fetch("math/0309136")
    assert meta is not None
    assert meta.title == "Knots and their invariants"


async def test_an_error_entry_reads_nothing_and_says_so(
    client: ArxivClient, paced_arxiv: ArxivStandin, caplog: pytest.LogCaptureFixture
) -> None:
    """arXiv failing to read a query it should read: nothing read, a warning, asked again later."""
    paced_arxiv.mode = "error_entry"
    with (
        caplog.at_level(logging.WARNING, "paperclub.sources"),
        pytest.raises(SourceUnavailable, match="error"),
    ):
        await client.fetch("2406.12045")
    assert "error entry" in caplog.text
    with pytest.raises(SourceUnavailable, match="error entry"):
        await client.search_titles("TMax")
    paced_arxiv.mode = "ok"
    assert await client.fetch("2406.12045") is not None


@pytest.mark.parametrize("status", [429, 200])
async def test_the_bare_throttle_is_a_rate_limit(
    client: ArxivClient, paced_arxiv: ArxivStandin, timer: VirtualTimer, status: int
) -> None:
    """ "Rate exceeded." without a Retry-After (as a 429, or a 200): a command does not wait the sensible
    wait, and no call asks arXiv again before it ends; a caller that may wait gets the paper after it."""
    paced_arxiv.rate_limit_next(1, status)
    with pytest.raises(SourceUnavailable, match="wait") as info:
        await client.fetch("2406.12045", max_wait=5)
    assert info.value.retry_at is not None
    assert (info.value.retry_at - timer.wall()).total_seconds() == pytest.approx(BARE_THROTTLE_WAIT, abs=1)
    with pytest.raises(SourceUnavailable):
        await client.fetch("2406.12045", max_wait=5)
    assert len(paced_arxiv.requests) == 1  # the second call never reached arXiv
    paced_arxiv.rate_limit_next(1, status)
    timer.advance(BARE_THROTTLE_WAIT)
    assert await client.fetch("2406.12045", max_wait=60) is not None
    assert BARE_THROTTLE_WAIT in timer.slept
    assert paced_arxiv.refused_too_fast == []


async def test_down_slow_refused_and_garbage(paced_arxiv: ArxivStandin, timer: VirtualTimer) -> None:
    seed(paced_arxiv)
    client = ArxivClient(paced_arxiv.url, timer=timer, timeout=0.2)
    try:
        paced_arxiv.mode = "down"
        with pytest.raises(SourceUnavailable, match="503"):
            await client.fetch("2406.12045")
        assert len(paced_arxiv.requests) == 2  # retried once
        paced_arxiv.mode, paced_arxiv.delay = "slow", 0.5
        with pytest.raises(SourceUnavailable, match="no answer within"):
            await client.fetch("2406.12045")
    finally:
        await client.close()
    refused = ArxivClient("http://127.0.0.1:9/api/query", timer=timer, timeout=1)
    try:
        with pytest.raises(SourceUnavailable):
            await refused.fetch("2406.12045")
    finally:
        await refused.close()


async def test_title_search_candidates(client: ArxivClient, paced_arxiv: ArxivStandin) -> None:
    (tmax,) = await client.search_titles("TMax")
    assert (tmax.source, tmax.source_id, tmax.arxiv_id, tmax.title) == (
        "arxiv",
        "2601.00001",
        "2601.00001",
        TMAX,
    )
    assert (tmax.authors, tmax.year, tmax.venue) == (("Hamish Ivison", "Ada Lovelace"), 2026, None)
    assert tmax.url == "https://arxiv.org/abs/2601.00001"
    assert paced_arxiv.requests == ['ti:"TMax"']
    terminal = await client.search_titles('"Terminal" (world)!', limit=5)
    assert [c.arxiv_id for c in terminal] == ["2602.00002"]  # the phrase "Terminal world"
    assert paced_arxiv.requests[-1] == 'ti:"Terminal world"'
    assert await client.search_titles("no such paper") == []
    assert await client.search_titles("  ?!  ") == []  # nothing to ask: not sent
    assert len(paced_arxiv.requests) == 3


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
    unpaced = SourceClient(paced_arxiv.url, RateLimit(1, 0.001), timer=timer)
    try:
        assert (await unpaced.get("", {"id_list": "2601.00001"})).status == 200
        second = await unpaced.get("", {"id_list": "2601.00001"}, max_wait=0.5)
    except SourceUnavailable:
        second = None
    finally:
        await unpaced.close()
    assert second is None or second.status == 429
    assert len(paced_arxiv.refused_too_fast) >= 1


def xml_safe(text: str) -> str:
    """What arXiv can send at all: XML 1.0 has no C0 control characters but tab and newline."""
    return "".join(c for c in text if c >= " " or c in "\t\n")


async def test_hostile_titles_are_cut(client: ArxivClient, paced_arxiv: ArxivStandin) -> None:
    paced_arxiv.add("2604.00004", xml_safe("Evil " + hostile_text(10_000)), [xml_safe(hostile_text(400))])
    (evil,) = await client.search_titles("Evil")
    assert_clean(evil.title, clean.TITLE_MAX)
    assert len(evil.authors[0]) <= clean.NAME_MAX


async def test_two_processes_share_the_pace_through_the_store(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    """Two processes (two clients, each with its own pacer) on one store, asking at once on real time: the
    store's turn keeps every arrival a pace apart and one at a time. (A pace of 0.3 s keeps the test short;
    the client's is arXiv's 3 s.)"""
    pace = 0.3
    standin = ArxivStandin()
    standin.enforce_rate_limit, standin.min_interval = True, pace
    await standin.start()
    seed(standin)
    clients = [
        ArxivClient(standin.url, turns=StoreTurns(session_factory), limit=RateLimit(1, pace), max_wait=30)
        for _ in range(2)
    ]
    try:
        found = await asyncio.gather(*(c.fetch("2601.00001") for c in clients for _ in range(3)))
    finally:
        for c in clients:
            await c.close()
        await standin.stop()
    assert all(meta is not None for meta in found)
    assert len(standin.requests) == 6
    assert standin.refused_too_fast == []
    assert standin.overlapped == []
    assert min(gaps(standin.request_times)) >= pace
