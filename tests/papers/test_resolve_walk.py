"""``paperclub papers resolve`` on the imported example programme (examples/club.yaml, title-only papers),
against the sources' stand-ins and the store (SQLite and PostgreSQL): ``--auto`` takes only unambiguous
names; the interactive walk takes a number, n, s and q; a source down still leaves the others' answers."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.papers.flows import walk
from bot.services.papers.store import find_alias, unresolved_papers
from bot.services.programme.files import import_text
from bot.sources.clients import SourceClients
from bot.sources.huggingface import HuggingFaceClient
from bot.sources.semantic_scholar import SemanticScholarClient
from db.models import Paper
from standin.huggingface import HuggingFaceStandin
from standin.semantic_scholar import SemanticScholarStandin
from tests.papers.helpers import VirtualTimer

ROOT = Path(__file__).resolve().parents[2]
GUILD = 515151
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
TMAX = "TMax: Scaling Terminal Agents with Reinforcement Learning"


def seed(s2: SemanticScholarStandin, hf: HuggingFaceStandin) -> None:
    s2.add("s2tmax", TMAX, arxiv_id="2511.00001", year=2025)
    hf.add("2511.00001", TMAX)
    s2.add("s2t1", "T1: Tool-Integrated Self-Verification", arxiv_id="2511.00002")
    s2.add("s2t2", "T2: A Different Paper", arxiv_id="2511.00003")  # "T1" lacks its number: not offered
    s2.add("s2tw", "Terminal-World: Benchmarking Terminal Agents", arxiv_id="2511.00004")
    hf.add(
        "2511.00005", "Terminal World Models: Many Terminals"
    )  # close enough to make Terminal-World ambiguous
    s2.add("s2pers", "Persimmon Orchards and Their Yield Modelling", doi="10.1/pers")  # weak: skipped


async def imported(session_factory: async_sessionmaker[AsyncSession]) -> list[str]:
    text = (ROOT / "examples" / "club.yaml").read_text(encoding="utf-8")
    await import_text(session_factory, text, suffix=".yaml", guild_id=GUILD)
    async with session_factory() as session:
        return await unresolved_papers(session, GUILD)


def clients(s2: SemanticScholarStandin, hf: HuggingFaceStandin, timer: VirtualTimer) -> SourceClients:
    return SourceClients(
        semantic_scholar=SemanticScholarClient(s2.base, timer=timer, max_wait=5.0),
        huggingface=HuggingFaceClient(hf.url, timer=timer, max_wait=5.0),
    )


async def no_input(prompt: str) -> str | None:
    raise AssertionError("--auto asked a question")


async def test_auto_resolves_only_the_unambiguous_names(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    huggingface: HuggingFaceStandin,
    timer: VirtualTimer,
) -> None:
    seed(semantic_scholar, huggingface)
    names = await imported(session_factory)
    assert {"TMax", "Terminal-World", "T1", "Persimmon"} <= set(names)
    said: list[str] = []
    sources = clients(semantic_scholar, huggingface, timer)
    try:
        report = await walk(
            session_factory, sources, GUILD, auto=True, ask=no_input, say=said.append, now=lambda: NOW
        )
    finally:
        await sources.close()
    assert sorted(name for name, _ in report.resolved) == ["T1", "TMax"]
    assert report.rejected == []
    skipped = dict(report.skipped)
    assert skipped["Terminal-World"].startswith("ambiguous: next match")
    assert skipped["Persimmon"].startswith("best match")
    assert len(report.skipped) == len(names) - 2
    out = "\n".join(said)
    assert f"{len(names)} unresolved papers in server {GUILD}" in out
    assert f"resolved: {TMAX!r} (arXiv:2511.00001)" in out
    assert out.endswith(f"2 resolved, 0 marked none of these, {len(names) - 2} skipped")
    async with session_factory() as session:
        tmax = await session.scalar(
            select(Paper).where(Paper.guild_id == GUILD, Paper.arxiv_id == "2511.00001")
        )
        assert tmax is not None
        assert tmax.title == TMAX
        assert await find_alias(session, GUILD, "Terminal-World") is None  # skipped names stay unasked
        left = await unresolved_papers(session, GUILD)
    assert sorted(left) == sorted(n for n in names if n not in ("TMax", "T1"))
    # a second import of the same programme keeps the resolved papers: the names follow their aliases
    assert await imported(session_factory) == left


def answers(*lines: str | None) -> tuple[list[str], object]:
    asked: list[str] = []
    queue: Iterator[str | None] = iter(lines)

    async def ask(prompt: str) -> str | None:
        asked.append(prompt)
        return next(queue, None)

    return asked, ask


async def test_the_walk_takes_a_number_none_skip_and_quit(
    session_factory: async_sessionmaker[AsyncSession],
    semantic_scholar: SemanticScholarStandin,
    huggingface: HuggingFaceStandin,
    timer: VirtualTimer,
) -> None:
    seed(semantic_scholar, huggingface)
    names = await imported(session_factory)
    offered = [n for n in names if n in ("TMax", "Terminal-World", "T1", "Persimmon")]
    # in the programme's order: a bad answer then a pick, none of these, a skip, then quit
    asked, ask = answers("7", "1", "n", "s", "q")
    said: list[str] = []
    huggingface.fail_next(1000, 503)  # Hugging Face down: Semantic Scholar's answers are still offered
    sources = clients(semantic_scholar, huggingface, timer)
    try:
        report = await walk(
            session_factory,
            sources,
            GUILD,
            auto=False,
            ask=ask,
            say=said.append,
            now=lambda: NOW,  # type: ignore[arg-type]
        )
    finally:
        await sources.close()
    out = "\n".join(said)
    assert "'7' is not one of" in out
    assert "(not asked: huggingface)" in out
    assert "stopped; the picks so far are kept" in out
    assert [name for name, _ in report.resolved] == [offered[0]]
    assert report.rejected == [offered[1]]
    assert (offered[2], "skipped") in report.skipped
    assert len(asked) == 5
    async with session_factory() as session:
        rejected = await find_alias(session, GUILD, offered[1])
        assert rejected is not None
        assert rejected.rejected
        left = set(await unresolved_papers(session, GUILD))
    assert offered[0] not in left
    assert offered[1] not in left  # none of these: not asked again
    assert offered[2] in left


@pytest.fixture(autouse=True)
def _quiet_hf_limit(huggingface: HuggingFaceStandin) -> None:
    huggingface.enforce_rate_limit = False  # the walk asks per name; the window is not what is tested here
