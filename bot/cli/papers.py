"""`paperclub papers resolve`: say which paper each title-only name means, in the terminal."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from bot.cli.common import command_settings, opened_store, server_id


async def _papers_resolve(args: argparse.Namespace) -> int:
    from bot.clock import SystemClock
    from bot.services.papers.walk import walk
    from bot.sources.clients import SourceClients
    from bot.sources.turns import StoreTurns
    from db.engine import create_session_factory

    settings = command_settings()

    async def ask(prompt: str) -> str | None:
        try:
            return await asyncio.to_thread(input, prompt)
        except EOFError:
            return None

    def say(line: str) -> None:
        print(line, flush=True)

    async with opened_store(settings, upgrade=True) as engine:
        factory = create_session_factory(engine)
        clients = SourceClients.from_settings(settings, turns=StoreTurns(factory))
        try:
            await walk(factory, clients, args.guild, auto=args.auto, ask=ask, say=say, now=SystemClock().now)
        finally:
            await clients.close()
    return 0


# bot.services.papers.resolve's AUTO_MIN and AUTO_NEXT_MAX, written here so --help loads no feature (a test
# holds them equal)
AUTO_MIN, AUTO_NEXT_MAX = 0.9, 0.6


def add(sub: Any) -> None:
    """`paperclub papers …`."""
    papers = sub.add_parser("papers", help="the club's papers", description="The club's papers.")
    papers_sub = papers.add_subparsers(dest="papers_command", required=True, metavar="PAPERS_COMMAND")
    resolve = papers_sub.add_parser(
        "resolve",
        help="say which paper each title-only name means",
        description=(
            "Walk the server's unresolved (title-only) papers: each name's candidates from Semantic Scholar, "
            "Hugging Face and arXiv (those PAPER_SOURCES turns on) as a numbered list; type a number to pick, "
            "n for none of these (not asked again), s to skip, q to stop. Every pick is remembered as an "
            "alias, so the next mention of the name resolves at once."
        ),
    )
    resolve.add_argument("--guild", type=server_id, required=True, help="server id")
    resolve.add_argument(
        "--auto",
        action="store_true",
        help=(
            f"ask nothing: take a name's best candidate only when its title similarity is at least "
            f"{AUTO_MIN} and the next candidate's at most {AUTO_NEXT_MAX} (or there is no other); print "
            "what was resolved and what was skipped, and why"
        ),
    )
    resolve.set_defaults(handler=_papers_resolve)
