"""/paper show beside /session show in the same run, through the local stand-in (store only: no outside
source is asked on either path).

    .venv/bin/python -m bench.paper_bench [--n 2000] [--calls 600] [--rounds 3] [--database-url URL]

Stores ``--n`` sessions reading two of 500 papers each (bench.sessions_bench's seed), gives every paper
the sources' fields (a TLDR, venue, decision, citations, links, Semantic Scholar's provenance), a
suggestion with two volunteers for every other paper and a place on one of ten reading lists, then
measures dispatch (the stand-in sends INTERACTION_CREATE) → first response (the bot's callback arrives)
for /session show of a random session and /paper show of a random paper, the two interleaved call by
call so machine noise hits both alike. The issue's target: /paper show's p99 within 1.5× /session show's.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update

from bench.common import line, summary, time_invoke
from bench.sessions_bench import pg_schema, seed
from bot.demo.botenv import BotEnv
from db.models import Paper
from db.models.reading import ReadingList, ReadingListItem
from db.models.suggestions import Suggestion, SuggestionVolunteer

TARGET_RATIO = 1.5  # /paper show's p99 at most this many times /session show's
LISTS = 10


async def enrich_all(env: BotEnv) -> list[int]:
    """Every paper with the sources' fields, half of them suggested (two volunteers each), each on a list."""
    guild_id, now = env.guild.id, env.clock.now()
    at = datetime(2026, 10, 1, tzinfo=UTC).isoformat()
    async with env.bot.session_factory() as session, session.begin():
        paper_ids = list((await session.scalars(select(Paper.id).order_by(Paper.id))).all())
        await session.execute(
            update(Paper).values(
                tldr="A benchmark of terminal tasks, verified by tests, with an RL recipe that beats SFT. "
                * 3,
                year=2026,
                venue="International Conference on Learning Representations",
                decision="ICLR 2026 Oral",
                citation_count=123,
                influential_citation_count=17,
                pdf_url="https://arxiv.org/pdf/2401.12345",
                code_url="https://github.com/example/bench",
                hf_url="https://huggingface.co/papers/2401.12345",
                hf_models=4,
                hf_datasets=2,
                openreview_url="https://openreview.net/forum?id=bench",
                s2_url="https://www.semanticscholar.org/paper/bench?utm_source=api",
                authors="Ada Lovelace, Alan Turing, Grace Hopper, Hamish Ivison, Noah Shinn, Shunyu Yao",
                field_sources={"tldr": ["semantic_scholar", at], "code_url": ["huggingface", at]},
            )
        )
        await session.execute(
            insert(Suggestion),
            [
                {
                    "guild_id": guild_id,
                    "paper_id": pid,
                    "submitter_id": 1000 + k,
                    "status": "open",
                    "created_at": now,
                }
                for k, pid in enumerate(paper_ids[::2])
            ],
        )
        suggestion_ids = list((await session.scalars(select(Suggestion.id))).all())
        await session.execute(
            insert(SuggestionVolunteer),
            [
                {"suggestion_id": sid, "user_id": 5000 + v, "created_at": now}
                for sid in suggestion_ids
                for v in range(2)
            ],
        )
        await session.execute(
            insert(ReadingList),
            [
                {"guild_id": guild_id, "name": f"List {i}", "normalized_name": f"list {i}", "created_at": now}
                for i in range(LISTS)
            ],
        )
        list_ids = list((await session.scalars(select(ReadingList.id))).all())
        await session.execute(
            insert(ReadingListItem),
            [
                {"list_id": list_ids[k % LISTS], "paper_id": pid, "position": k, "added_at": now}
                for k, pid in enumerate(paper_ids)
            ],
        )
    return paper_ids


async def measure(env: BotEnv, n: int, calls: int, rounds: int) -> dict[str, list[float]]:
    """Seed, warm up, then time the two commands interleaved."""
    samples: dict[str, list[float]] = {"session": [], "paper": []}
    rng = random.Random(7)
    started = time.perf_counter()
    session_ids = await seed(env, n)
    paper_ids = await enrich_all(env)
    print(
        f"stored {len(session_ids)} sessions and {len(paper_ids)} papers in {time.perf_counter() - started:.1f} s"
    )
    member = env.member

    def session_show() -> Any:
        return env.invoke("session show", {"session": rng.choice(session_ids)}, member=member)

    def paper_show() -> Any:
        return env.invoke("paper show", {"paper": str(rng.choice(paper_ids))}, member=member)

    check = await (await paper_show()).final()
    assert check.is_components_v2, check
    assert "Read in the club" in check.text, check.text
    for _ in range(30):  # warm-up
        await (await session_show()).response()
        await (await paper_show()).response()
    gc.collect()
    gc.freeze()  # the stand-in's log of messages grows with the run: keep its collections out of the timings
    per_round = max(1, calls // rounds)
    for _ in range(rounds):
        for _ in range(per_round):
            samples["session"].append(await time_invoke(session_show))
            samples["paper"].append(await time_invoke(paper_show))
        gc.collect()
    return samples


async def main(n: int, calls: int, rounds: int, database_url: str | None) -> None:
    """Run the bench and print medians, p99s and the ratio."""
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        url = database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        async with (
            pg_schema(database_url) as engine_factory,
            BotEnv(database_url=url, engine_factory=engine_factory) as env,
        ):
            samples = await measure(env, n, calls, rounds)
    print(line("/session show", samples["session"]))
    print(line("/paper show", samples["paper"]))
    s, p = summary(samples["session"]), summary(samples["paper"])
    ratio = p["p99"] / s["p99"]
    print(
        f"median: /session show {s['p50']:.2f} ms, /paper show {p['p50']:.2f} ms ({p['p50'] / s['p50']:.2f}x)"
    )
    print(f"p99: /session show {s['p99']:.2f} ms, /paper show {p['p99']:.2f} ms ({ratio:.2f}x)")
    print(
        f"target: /paper show's p99 at most {TARGET_RATIO:g}x /session show's: {'met' if ratio <= TARGET_RATIO else 'MISSED'}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=2000, help="sessions stored (default 2000)")
    parser.add_argument("--calls", type=int, default=600, help="calls per command (default 600)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--database-url", default=None, help="store (default: a temporary SQLite file)")
    args = parser.parse_args()
    asyncio.run(main(args.n, args.calls, args.rounds, args.database_url))
