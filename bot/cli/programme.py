"""`paperclub import` and `export`: the club's programme as a YAML or JSON file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bot.cli.common import command_settings, database_failures, server_id


async def _import(args: argparse.Namespace) -> int:
    from bot.services.programme.files import import_file

    settings = command_settings()
    with database_failures(settings):
        return await import_file(settings, Path(args.file), guild_id=args.guild)


async def _export(args: argparse.Namespace) -> int:
    from bot.services.programme.files import export_file

    settings = command_settings()
    with database_failures(settings):
        return await export_file(settings, Path(args.file), guild_id=args.guild)


def add(sub: Any) -> None:
    """`paperclub import` and `paperclub export`."""
    imp = sub.add_parser(
        "import",
        help="import a club programme (YAML or JSON)",
        description="Validate a YAML/JSON programme, then write it in one transaction.",
    )
    imp.add_argument("file", help="path to a .yaml/.yml/.json file")
    imp.add_argument(
        "--guild",
        type=server_id,
        default=None,
        help="server id (default: the file's guild_id, else the one server the store knows)",
    )
    imp.set_defaults(handler=_import)

    exp = sub.add_parser(
        "export",
        help="export the club programme (YAML or JSON)",
        description="Write settings, sessions and reading lists to a YAML/JSON file.",
    )
    exp.add_argument("file", help="path to a .yaml/.yml/.json file")
    exp.add_argument(
        "--guild", type=server_id, default=None, help="server id (default: the one server the store knows)"
    )
    exp.set_defaults(handler=_export)
