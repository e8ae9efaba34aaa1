"""/privacy and *Delete my data* on servers with a club's realistic data, through the local stand-in.

    .venv/bin/python -m bench.privacy_bench [--servers 10] [--calls 200] [--deletes 40] [--database-url URL]

Each of ``--servers`` servers holds a club's years: 500 sessions (30 members asked to be reminded of each,
their Remind me DMs and the presenter's), 2,000 suggestions with 10 votes and an offer each, 3,000 members'
worth of ids among them. The first server is the stand-in's, with 40 of its members real. Measured, dispatch
(the stand-in sends INTERACTION_CREATE) → the answer a member sees, p50/p99: /privacy in the server (one
statement per kind), /privacy from a DM (every server), and /setup show (one statement) as the baseline in
the same run; then *Delete my data* (the confirmation's press → its edited message: the one transaction
and the reply), each for a different member, and the deletion's transaction alone.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select

from bench.common import line, summary
from bench.sessions_bench import pg_schema
from bot.demo.botenv import BotEnv
from bot.services.privacy.actions import erase_member
from bot.services.privacy.rows import Who
from db.models import ClubSession, Paper, SessionSubscription
from db.models.reminders import PENDING, PERSONAL, PRESENTER, SENT, Reminder
from db.models.suggestions import Suggestion, SuggestionVolunteer, SuggestionVote

SESSIONS, SUGGESTIONS, VOTES, SUBSCRIBERS, MEMBERS = 500, 2000, 10, 30, 3000


async def seed(env: BotEnv, guild_id: int, people: list[int], rng: random.Random) -> None:
    """One club's years in ``guild_id``, its member ids drawn from ``people``."""
    now = env.clock.now()
    async with env.bot.session_factory() as session, session.begin():
        await session.execute(
            insert(Paper),
            [
                {
                    "guild_id": guild_id,
                    "key": f"title:p{p}",
                    "kind": "title",
                    "title": f"Paper {p}",
                    "normalized_title": f"paper {p}",
                    "created_at": now,
                }
                for p in range(SUGGESTIONS)
            ],
        )
        papers = list(
            await session.scalars(select(Paper.id).where(Paper.guild_id == guild_id).order_by(Paper.id))
        )
        first = now - timedelta(days=7 * (SESSIONS - 20))
        await session.execute(
            insert(ClubSession),
            [
                {
                    "guild_id": guild_id,
                    "title": f"Session {i}",
                    "starts_at": first + timedelta(days=7 * i),
                    "duration_minutes": 60,
                    "timezone": "UTC",
                    "presenter_id": rng.choice(people),
                    "presenter_name": f"Presenter {i}",
                    "status": "scheduled",
                    "sequence": 0,
                    "created_by": people[0],
                    "created_at": now,
                    "updated_at": now,
                }
                for i in range(SESSIONS)
            ],
        )
        clubs = (
            await session.execute(
                select(ClubSession.id, ClubSession.starts_at, ClubSession.presenter_id).where(
                    ClubSession.guild_id == guild_id
                )
            )
        ).all()
        subscriptions, reminders = [], []
        for club_id, starts, presenter in clubs:
            for member in rng.sample(people, SUBSCRIBERS):
                subscriptions.append(
                    {"session_id": club_id, "user_id": member, "before_minutes": 60, "created_at": now}
                )
                due = starts - timedelta(hours=1)
                if due > now - timedelta(days=30):  # the records kept: 30 days of them, and what is to come
                    reminders.append(_reminder(guild_id, PERSONAL, club_id, member, due, now))
            due = starts - timedelta(days=3)
            if due > now - timedelta(days=30):
                reminders.append(_reminder(guild_id, PRESENTER, club_id, presenter, due, now))
        for start in range(0, len(subscriptions), 5000):
            await session.execute(insert(SessionSubscription), subscriptions[start : start + 5000])
        if reminders:
            await session.execute(insert(Reminder), reminders)
        await session.execute(
            insert(Suggestion),
            [
                {
                    "guild_id": guild_id,
                    "paper_id": paper,
                    "submitter_id": rng.choice(people),
                    "reason": "Worth it",
                    "status": "open",
                    "created_at": now,
                    "updated_at": now,
                }
                for paper in papers
            ],
        )
        suggested = list(await session.scalars(select(Suggestion.id).where(Suggestion.guild_id == guild_id)))
        votes = [
            {"suggestion_id": s, "user_id": member, "created_at": now}
            for s in suggested
            for member in rng.sample(people, VOTES)
        ]
        for start in range(0, len(votes), 5000):
            await session.execute(insert(SuggestionVote), votes[start : start + 5000])
        await session.execute(
            insert(SuggestionVolunteer),
            [{"suggestion_id": s, "user_id": rng.choice(people), "created_at": now} for s in suggested],
        )


def _reminder(guild_id: int, kind: str, session_id: int, user: int, due: Any, now: Any) -> dict[str, Any]:
    past = due <= now
    return {
        "guild_id": guild_id,
        "kind": kind,
        "user_id": user,
        "session_id": session_id,
        "due_at": due,
        "next_attempt_at": due,
        "plan_key": None if past else (f"personal:{user}" if kind == PERSONAL else "presenter"),
        "status": SENT if past else PENDING,
        "occurrence": 0,
        "attempts": 1 if past else 0,
        "delayed": False,
        "sent_at": due if past else None,
        "created_at": now,
        "updated_at": now,
    }


async def measure(env: BotEnv, servers: int, calls: int, deletes: int) -> dict[str, list[float]]:
    rng = random.Random(27)
    real = [env.world.guild.members[m].user for m in list(env.world.guild.members)]
    for n in range(40 + deletes):
        real.append((await env.standin.create_member(env.guild, f"member{n}")).user)
    people = [u.id for u in real if not u.bot] + [10**15 + n for n in range(MEMBERS)]
    started = time.perf_counter()
    await seed(env, env.guild.id, people, rng)
    for n in range(1, servers):
        await seed(env, 10**17 + n, people, rng)
    print(
        f"stored {servers} servers' data in {time.perf_counter() - started:.1f} s ({env.database_url.split(':')[0]})"
    )
    members = [u for u in real if not u.bot and u.id != env.admin.id]
    samples: dict[str, list[float]] = {
        "setup show": [],
        "privacy": [],
        "privacy dm": [],
        "delete": [],
        "erase": [],
    }

    async def timed(name: str, work: Any) -> Any:
        begun = time.perf_counter()
        result = await work
        samples[name].append((time.perf_counter() - begun) * 1000)
        return result

    async def answer(name: str, options: Any = None, *, member: Any, channel: Any = None) -> Any:
        return await (await env.invoke(name, options, member=member, channel=channel)).final()

    for _ in range(10):  # warm-up
        await answer("setup show", member=env.admin)
        await answer("privacy", member=rng.choice(members))
    gc.collect()
    gc.freeze()
    for _ in range(calls):
        await timed("setup show", answer("setup show", member=env.admin))
        shown = await timed("privacy", answer("privacy", member=(who := rng.choice(members))))
        assert "What the bot keeps about you" in shown.text, shown.text
        dm = env.standin.state.dm_channel(who)
        await timed("privacy dm", answer("privacy", member=who, channel=dm))
    leaving = members[-deletes:]
    for who in leaving[: deletes // 2]:  # through Discord: the confirmation's press → its edited message
        shown = await answer("privacy", member=who)
        button = next(b for b in shown.buttons if str(b.get("custom_id", "")).startswith("privacy:ask:"))
        confirmation = await (await env.click(shown, button["custom_id"], member=who)).final()
        delete = next(
            b for b in confirmation.buttons if str(b.get("custom_id", "")).startswith("privacy:delete:")
        )
        done = await timed("delete", (await env.click(confirmation, delete["custom_id"], member=who)).final())
        assert "is deleted" in done.text, done.text
    for who in leaving[deletes // 2 :]:  # the one transaction alone, in the server
        async with env.bot.session_factory() as session:
            begun = time.perf_counter()
            async with session.begin():
                await erase_member(session, Who(who.id, frozenset({env.guild.id})), env.clock.now())
            samples["erase"].append((time.perf_counter() - begun) * 1000)
    return samples


async def main(servers: int, calls: int, deletes: int, database_url: str | None) -> None:
    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        url = database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
        async with (
            pg_schema(database_url) as engine_factory,
            BotEnv(database_url=url, engine_factory=engine_factory) as env,
        ):
            samples = await measure(env, servers, calls, deletes)
    print(line("/setup show (baseline)", samples["setup show"]))
    print(line("/privacy in the server", samples["privacy"]))
    print(line(f"/privacy from a DM ({servers} servers)", samples["privacy dm"]))
    print(line("Delete my data (press → reply)", samples["delete"]))
    print(line("its transaction alone", samples["erase"]))
    base = summary(samples["setup show"])
    for name in ("privacy", "privacy dm", "delete"):
        s = summary(samples[name])
        print(
            f"ratio {name}/setup show: p50 {s['p50'] / base['p50']:.2f}x  p99 {s['p99'] / base['p99']:.2f}x"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--servers", type=int, default=10, help="servers of data in the store (default 10)")
    parser.add_argument("--calls", type=int, default=200, help="calls of each command (default 200)")
    parser.add_argument("--deletes", type=int, default=40, help="members whose data is deleted (default 40)")
    parser.add_argument("--database-url", default=None, help="store (default: a temporary SQLite file)")
    args = parser.parse_args()
    asyncio.run(main(args.servers, args.calls, args.deletes, args.database_url))
