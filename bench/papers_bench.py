"""Enriching an imported programme's 200 papers vs the time the sources' rate limits force.

Semantic Scholar (1 request/s, batches of 500) and Hugging Face (500 requests per 5 minutes, two per
paper) stand-ins enforce their limits on the real clock; each round enriches every paper of a fresh
SQLite store (``enrich_due`` with a limit of all of them). The floor is what the limits alone force
for the requests made: (requests - 1) x 1 s for Semantic Scholar, a 5-minute window per 500 requests
beyond the first for Hugging Face. ``--latency MS`` makes every stand-in answer that much later, as a
real service over the network does (the default, 0, leaves only the store's own work to compare).
Run: ``python -m bench.papers_bench [--papers 200] [--rounds 5] [--latency 0]``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import line, summary
from bot.papers import parse_paper_ref
from bot.services.papers.enrich import enrich_due
from bot.services.papers.store import get_or_create_paper
from bot.sources.clients import SourceClients
from bot.sources.huggingface import HuggingFaceClient
from bot.sources.semantic_scholar import BATCH_MAX, SemanticScholarClient, arxiv_ref
from db.engine import create_engine, create_session_factory
from db.migrate import upgrade_database
from standin.huggingface import HuggingFaceStandin
from standin.semantic_scholar import SemanticScholarStandin

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
GUILD = 1


def forced_seconds(papers: int) -> float:
    """What the published rate limits alone force for the requests one enrichment makes."""
    s2_requests = math.ceil(papers / BATCH_MAX)
    hf_requests = 2 * papers
    return max((s2_requests - 1) * 1.0, (math.ceil(hf_requests / 500) - 1) * 300.0)


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


async def one_round(papers: int, s2: SemanticScholarStandin) -> float:
    """Seconds to enrich ``papers`` papers in a fresh store."""
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite+aiosqlite:///{Path(tmp) / 'papers.db'}")
        await upgrade_database(engine)
        factory = create_session_factory(engine)
        async with factory() as session, session.begin():
            for n in range(papers):
                await get_or_create_paper(session, GUILD, parse_paper_ref(f"2501.{10000 + n}"))
        async with seeded_hub(papers) as hf:
            clients = SourceClients(
                semantic_scholar=SemanticScholarClient(s2.base), huggingface=HuggingFaceClient(hf.url)
            )
            try:
                started = time.perf_counter()
                changed = await enrich_due(clients, factory, NOW, limit=papers)
                elapsed = time.perf_counter() - started
            finally:
                await clients.close()
                await engine.dispose()
        assert len(changed) == papers, len(changed)
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.0, help="ms each stand-in waits before answering")
    args = parser.parse_args()
    LATENCY = args.latency / 1000
    asyncio.run(main(args.papers, args.rounds))
