"""How wide one action is: /suggest with an arXiv link, traced, then the enrichment job and the post's
re-render it sets off; and the store queries an idle bot makes per minute.

    .venv/bin/python -m bench.suggest_walk
    # the same on an older tree (the figures before), e.g.:
    mkdir /tmp/old && git archive <commit> | tar -x -C /tmp/old && PYTHONPATH=/tmp/old .venv/bin/python -m bench.suggest_walk

1. ``walk``: a member suggests an arXiv paper the sources know (through the local stand-in with the real
   discord.py client); ``sys.setprofile`` records each function of the shipped code (bot/, cogs/, db/;
   not the demo's environment or the stand-in) called while (a) /suggest runs to its answer and its post,
   and (b) the clock moves until the enrichment job has run and the post is re-rendered. Printed: files,
   folders and functions per phase, and the store transactions (commits) each made.
2. ``idle``: the bot with nothing to do for ten minutes of its clock, moved a second at a time; the SQL
   statements it runs per minute, per job (the task that ran them). Deterministic: no timings.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path
from types import FrameType
from typing import Any

from sqlalchemy import event

ROOT = Path(__file__).resolve().parent.parent
ARXIV_ID = "2406.12045"
TITLE = "Tau-Bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains"
SHIPPED = ("bot", "cogs", "db")
NOT_SHIPPED = ("bot/demo/", "db/migrations/")
HARNESS = {"Task-1"}


def _root() -> Path:
    """The tree the bot was imported from (PYTHONPATH may point at an older one)."""
    import bot

    return Path(bot.__file__).resolve().parent.parent


class Trace:
    """The shipped code's functions called, by file."""

    def __init__(self, root: Path) -> None:
        self.root = str(root) + "/"
        self.functions: set[tuple[str, str]] = set()

    def profile(self, frame: FrameType, what: str, arg: Any) -> None:
        if what != "call":
            return
        path = frame.f_code.co_filename
        if not path.startswith(self.root):
            return
        relative = path[len(self.root) :]
        if relative.split("/", 1)[0] not in SHIPPED or relative.startswith(NOT_SHIPPED):
            return
        try:
            task = asyncio.current_task()
        except RuntimeError:
            task = None
        if task is not None and task.get_name() in HARNESS:
            return  # the bench's own task: settling, moving the fake clock
        self.functions.add((relative, frame.f_code.co_qualname))

    def report(self, title: str, commits: int) -> None:
        files = {path for path, _ in self.functions}
        folders = {path.rsplit("/", 1)[0] for path in files}
        print(
            f"{title}: {len(files)} files in {len(folders)} folders, {len(self.functions)} functions, {commits} transactions"
        )
        for folder in sorted(folders):
            names = sorted(p.rsplit("/", 1)[1] for p in files if p.rsplit("/", 1)[0] == folder)
            print(f"    {folder}/: {', '.join(names)}")


async def _settle(env: Any) -> None:
    cog: Any = env.bot.get_cog("SuggestionsCog")
    if hasattr(cog, "settle"):
        await cog.settle()
    else:  # older trees
        await cog.actions.refresher.wait_idle()


async def walk() -> None:
    from bot.demo.botenv import BotEnv

    with tempfile.TemporaryDirectory() as tmp:
        async with BotEnv(database_url=f"sqlite+aiosqlite:///{Path(tmp) / 'walk.db'}") as env:
            env.arxiv.add(ARXIV_ID, TITLE, ["Shunyu Yao"], "We propose tau-bench.", "2024-06-17T17:42:00Z")
            env.semantic_scholar.add(
                "s2tau", TITLE, arxiv_id=ARXIV_ID, year=2024, venue="ICLR", tldr="Agents fail at tools."
            )
            env.huggingface.add(ARXIV_ID, TITLE, github_repo="https://github.com/sierra-research/tau-bench")
            setup = await env.invoke("setup suggestions", {"channel": env.suggestions}, member=env.admin)
            await setup.final()
            await env.clock.advance(timedelta(minutes=5))  # start-up's runs out of the way
            series: Any = env.bot.get_cog("SeriesCog")
            await series.background.settle()
            commits = Counter[str]()
            event.listen(env.bot.engine.sync_engine, "commit", lambda _conn: commits.update(["n"]))
            root = _root()
            for title, step in (
                ("/suggest with an arXiv link", _suggest),
                ("then the enrichment job and the post re-rendered", _enrich),
            ):
                trace, before = Trace(root), commits["n"]
                sys.setprofile(trace.profile)
                try:
                    await step(env)
                finally:
                    sys.setprofile(None)
                trace.report(title, commits["n"] - before)
                if title.startswith("/suggest"):
                    first = trace
            both = Trace(root)
            both.functions = first.functions | trace.functions
            files = {path for path, _ in both.functions}
            print(f"in all: {len(files)} distinct files, {len(both.functions)} distinct functions")


async def _suggest(env: Any) -> None:
    result = await env.invoke(
        "suggest", {"paper": f"https://arxiv.org/abs/{ARXIV_ID}"}, member=env.members[0]
    )
    answer = await result.final()
    print(f"  answer: {answer.content.splitlines()[0][:120]}")
    await _settle(env)


async def _enrich(env: Any) -> None:
    await env.clock.advance(timedelta(seconds=6))  # due at once now; an older tree's 5 s tick
    await _settle(env)


async def idle() -> None:
    from bot.demo.botenv import BotEnv

    with tempfile.TemporaryDirectory() as tmp:
        async with BotEnv(database_url=f"sqlite+aiosqlite:///{Path(tmp) / 'idle.db'}") as env:
            await env.clock.advance(timedelta(minutes=5))  # start-up's runs out of the way
            statements = Counter[str]()

            def count(*_args: Any) -> None:
                task = asyncio.current_task()
                name = task.get_name() if task else "(no task)"
                statements[name.removeprefix("job-") if name.startswith("job-") else "other"] += 1

            event.listen(env.bot.engine.sync_engine, "before_cursor_execute", count)
            minutes = 10
            for _ in range(minutes * 60):
                await env.clock.advance(timedelta(seconds=1))
            total = sum(statements.values())
            print(f"idle: {total / minutes:.1f} statements per minute over {minutes} minutes of the clock")
            for name, n in statements.most_common():
                print(f"    {name:<28} {n / minutes:.1f}/min")


async def main() -> None:
    logging.disable(logging.WARNING)
    await walk()
    await idle()


if __name__ == "__main__":
    asyncio.run(main())
