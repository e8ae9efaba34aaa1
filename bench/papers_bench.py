"""Enriching an imported programme's 200 papers: the store's cost, and the time the published limits force.

1. The store's cost, on the real clock: Semantic Scholar (1 request/s, batches of 500) and Hugging Face
   (500 requests per 5 minutes; one per paper with no linked repos) stand-ins; each round enriches every
   paper of a fresh SQLite store (``enrich_due`` with a limit of all of them), against the same requests
   made with bare clients in the same run. ``--latency MS`` makes every stand-in answer that much later.
2. The published limits modelled, on a virtual clock (the clients' waits and the stand-ins' limits share
   it, so minutes of pacing cost no real time): the same 200 papers, of which 50 are at venues OpenReview
   holds (10 of them ICLR 2023, on API v1 only) and so need OpenReview at its guest limit, 20 a minute.
   The floor is what the limits alone force for the requests the stand-ins saw: for a source allowing N
   requests per W seconds, R requests take at least (ceil(R / N) - 1) x W; the sources' floors overlap, so
   the run's floor is the largest. Printed: the virtual time against that floor, requests refused for
   going too fast (none may be), and whether every paper is complete.
Run: ``python -m bench.papers_bench [--papers 200] [--rounds 5] [--latency 0]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import tempfile
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bench.common import line, summary
from bot.clock import FakeClock
from bot.papers import parse_paper_ref
from bot.services.papers.enrich import enrich_due
from bot.services.papers.store import get_or_create_paper
from bot.sources.clients import SourceClients
from bot.sources.huggingface import HuggingFaceClient
from bot.sources.openreview import OpenReviewClient
from bot.sources.pace import ClockTimer
from bot.sources.semantic_scholar import BATCH_MAX, SemanticScholarClient, arxiv_ref
from db.engine import create_engine, create_session_factory
from db.migrate import upgrade_database
from db.models import Paper
from standin.http_service import ServiceStandin
from standin.huggingface import ANONYMOUS_QUOTA, WINDOW, HuggingFaceStandin
from standin.openreview import GUEST_LIMIT, OpenReviewStandin
from standin.semantic_scholar import KEYED_RATE, SemanticScholarStandin

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
GUILD = 1


def forced_seconds(papers: int) -> float:
    """What the published rate limits alone force for the requests one enrichment makes (part 1)."""
    s2_requests = math.ceil(papers / BATCH_MAX)
    hf_requests = papers
    return max((s2_requests - 1) * 1.0, (math.ceil(hf_requests / 500) - 1) * 300.0)


def floor_of(requests: int, allowed: int, per: float) -> float:
    """The least time ``requests`` take at ``allowed`` requests per ``per`` seconds."""
    return max(0, math.ceil(requests / allowed) - 1) * per


LATENCY = 0.0  # seconds each stand-in waits before answering (--latency)


def slowed(service: Any) -> Any:
    """``service`` answering :data:`LATENCY` seconds late (its "slow" mode), when there is a latency."""
    if LATENCY > 0:
        service.mode, service.delay = "slow", LATENCY
    return service


def seeded_hub(papers: int) -> HuggingFaceStandin:
    """A Hugging Face stand-in (its own 5-minute window) indexing every paper."""
    hub = slowed(HuggingFaceStandin())
    for n in range(papers):
        hub.add(f"2501.{10000 + n}", f"Paper {n}", github_repo=f"https://github.com/club/p{n}")
    return hub


@contextlib.asynccontextmanager
async def fresh_store(papers: int) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """A fresh SQLite store holding ``papers`` arXiv papers never enriched."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite+aiosqlite:///{Path(tmp) / 'papers.db'}")
        try:
            await upgrade_database(engine)
            factory = create_session_factory(engine)
            async with factory() as session, session.begin():
                for n in range(papers):
                    await get_or_create_paper(session, GUILD, parse_paper_ref(f"2501.{10000 + n}"))
            yield factory
        finally:
            await engine.dispose()


async def one_round(papers: int, s2: SemanticScholarStandin) -> float:
    """Seconds to enrich ``papers`` papers in a fresh store."""
    async with fresh_store(papers) as factory, seeded_hub(papers) as hf:
        clients = SourceClients(
            semantic_scholar=SemanticScholarClient(s2.base), huggingface=HuggingFaceClient(hf.url)
        )
        try:
            started = time.perf_counter()
            changed = await enrich_due(clients, factory, NOW, limit=papers)
            elapsed = time.perf_counter() - started
        finally:
            await clients.close()
    assert sum(map(len, changed.values())) == papers, changed
    return elapsed


async def bare_round(papers: int, s2: SemanticScholarStandin) -> float:
    """Seconds for the same requests made straight with the clients: no store, no merge (the baseline)."""
    ids = [f"2501.{10000 + n}" for n in range(papers)]
    async with seeded_hub(papers) as hf:
        s2_client, hf_client = SemanticScholarClient(s2.base), HuggingFaceClient(hf.url)
        try:
            started = time.perf_counter()
            await s2_client.papers([arxiv_ref(i) for i in ids])
            for arxiv_id in ids:
                await hf_client.paper(arxiv_id)
            return time.perf_counter() - started
        finally:
            await s2_client.close()
            await hf_client.close()


ON_OPENREVIEW = 50
OLD_VENUES = 10  # of them at ICLR 2023, held by API v1 alone
ELSEWHERE = ("AAMAS", "CVPR", "ACL", "AAAI")  # venues OpenReview does not hold: not searched there
KEY = "bench-key"


async def limited_round(papers: int) -> None:
    """Part 2: every paper through S2, Hugging Face and (50 of them) OpenReview, limits modelled."""
    timer = ClockTimer(FakeClock(NOW))
    clock = timer.monotonic
    s2 = SemanticScholarStandin(clock=clock, api_keys={KEY})
    hf, reviews = HuggingFaceStandin(clock=clock), OpenReviewStandin(clock=clock, wall=timer.wall)
    for n in range(papers):
        arxiv_id, title = f"2501.{10000 + n}", f"Environment Paper {n}"
        old = n < OLD_VENUES
        venue = ("ICLR 2023" if old else "ICLR 2025") if n < ON_OPENREVIEW else ELSEWHERE[n % len(ELSEWHERE)]
        year = (2023 if old else 2025) if n < ON_OPENREVIEW else 2024
        s2.add(f"s2-{n}", title, arxiv_id=arxiv_id, venue=venue, year=year, tldr=f"TLDR {n}")
        hf.add(arxiv_id, title, github_repo=f"https://github.com/club/p{n}")
        if n < ON_OPENREVIEW:
            reviews.add_submission(
                f"forum{n:05d}",
                title,
                venue=f"{venue} poster",
                venue_id=f"ICLR.cc/{year}/Conference",
                number=n + 1,
                decision="Accept (poster)",
            )
    async with fresh_store(papers) as factory, s2, hf, reviews:
        clients = SourceClients(
            semantic_scholar=SemanticScholarClient(s2.base, api_key=KEY, timer=timer),
            huggingface=HuggingFaceClient(hf.url, timer=timer),
            openreview=OpenReviewClient(reviews.url, v1_url=reviews.v1_url, timer=timer),
        )
        try:
            started = time.perf_counter()
            await enrich_due(clients, factory, NOW, limit=papers)
            real = time.perf_counter() - started
        finally:
            await clients.close()
        async with factory() as session:
            complete = await session.scalar(select(func.count()).where(Paper.enriched_at.is_not(None)))
            decided = await session.scalar(select(func.count()).where(Paper.decision.is_not(None)))
    services: list[tuple[str, ServiceStandin, int, float]] = [
        ("Semantic Scholar", s2, KEYED_RATE[0], KEYED_RATE[1]),
        ("Hugging Face", hf, ANONYMOUS_QUOTA, WINDOW),
        ("OpenReview", reviews, GUEST_LIMIT, 60.0),
    ]
    floors = {name: floor_of(len(service.requests), n, per) for name, service, n, per in services}
    floor = max(floors.values())
    for name, service, n, per in services:
        print(
            f"  {name:<17} {len(service.requests):>4} requests at {n} per {per:g} s: floor {floors[name]:6.1f} s, "
            f"refused for going too fast: {len(service.refused_too_fast)}"
        )
    print(
        f"limits modelled: {papers} papers ({ON_OPENREVIEW} at OpenReview's venues, {OLD_VENUES} on API v1) "
        f"enriched in {timer.waited:.1f} s of the sources' clock vs the floor {floor:.1f} s: "
        f"{timer.waited / floor if floor else float('nan'):.2f}x; {real * 1000:.0f} ms real; "
        f"{complete} of {papers} complete, {decided} with OpenReview's decision"
    )


async def main(papers: int, rounds: int) -> None:
    """Print per-round times, the rate-limit floor, the bare requests' time and the ratios."""
    async with slowed(SemanticScholarStandin()) as s2:
        for n in range(papers):
            s2.add(f"s2-{n}", f"Paper {n}", arxiv_id=f"2501.{10000 + n}", tldr=f"TLDR {n}", citation_count=n)
        samples, bare = [], []
        for _ in range(rounds):  # interleaved: the machine is shared
            bare.append(await bare_round(papers, s2) * 1000)
            await asyncio.sleep(1.0)  # Semantic Scholar's one request per second, between rounds
            samples.append(await one_round(papers, s2) * 1000)
            await asyncio.sleep(1.0)
        too_fast = sum(1 for seen in s2.requests if seen.status == 429)
    print(line(f"enrich {papers} papers", samples))
    print(line("the same requests, bare clients", bare))
    floor = forced_seconds(papers)
    p50 = summary(samples)["p50"] / 1000
    base = summary(bare)["p50"] / 1000
    print(f"rate-limit floor {floor:.2f} s (the limits force no wait for {papers} papers)")
    print(f"ratio vs the floor or the bare requests, whichever is longer: {p50 / max(floor, base):.2f}")
    print(f"Semantic Scholar answers refused for going too fast: {too_fast}")
    print(f"each answer {LATENCY * 1000:.0f} ms late")
    await limited_round(papers)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.0, help="ms each stand-in waits before answering")
    args = parser.parse_args()
    LATENCY = args.latency / 1000
    asyncio.run(main(args.papers, args.rounds))
