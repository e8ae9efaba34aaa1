"""The `paperclub` command line: each command group's module adds its parsers; :func:`main` runs one."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import Any

from bot.cli import club, running, store
from bot.cli.common import CommandFailed, Parser
from bot.settings import SettingsError

# Each adds one command or group (its module holds what it runs), in the order --help lists them.
COMMANDS: tuple[Callable[[Any], None], ...] = (
    running.add_run,
    store.add,
    running.add_sync,
    club.add_files,
    club.add_papers,
    running.add_invite_url,
    club.add_site,
    store.add_data,
)


def build_parser() -> argparse.ArgumentParser:
    """The ``paperclub`` command line: its sub-commands and their options."""
    parser = Parser(prog="paperclub", description="A Discord bot for a research paper club.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``paperclub`` command line and return its exit code."""
    args = build_parser().parse_args(argv)
    try:
        return asyncio.run(args.handler(args)) or 0  # a handler without an exit code succeeded
    except (SettingsError, CommandFailed) as exc:
        print(f"paperclub: {exc}", file=sys.stderr)
        return exc.code if isinstance(exc, CommandFailed) else 2
    except KeyboardInterrupt:
        return 130
