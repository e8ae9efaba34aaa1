"""`paperclub data …`: a server's data deleted at once, and a member's data as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from bot.cli.common import CommandFailed, command_settings, opened_store, server_id, user_id


def _unknown(guild_id: int) -> CommandFailed:
    return CommandFailed(
        f"the store holds nothing of server {guild_id}: nothing was touched (check the id: Developer Mode → "
        "right-click the server → Copy Server ID)"
    )


def _rows(counted: dict[str, int]) -> str:
    return ", ".join(f"{n} {table}" for table, n in sorted(counted.items()))


async def _delete(args: argparse.Namespace) -> int:
    from bot.services.privacy.servers import delete_server, holdings
    from db.engine import create_session_factory

    async with opened_store(command_settings()) as engine:
        factory = create_session_factory(engine)
        if args.dry_run:
            async with factory() as session:
                counted = await holdings(session, args.guild)
        else:
            async with factory() as session, session.begin():
                counted = await delete_server(session, args.guild)
    if not counted:
        raise _unknown(args.guild)
    if args.dry_run:
        print(f"would delete from server {args.guild}: {_rows(counted)} (nothing deleted: --dry-run)")
    else:
        print(f"deleted every row of server {args.guild}: {_rows(counted)}")
    return 0


async def _export(args: argparse.Namespace) -> int:
    from bot.clock import SystemClock
    from bot.services.privacy.actions import export_member
    from bot.services.privacy.servers import holdings
    from db.engine import create_session_factory

    async with opened_store(command_settings()) as engine, create_session_factory(engine)() as session:
        if not await holdings(session, args.guild):
            raise _unknown(args.guild)
        exported = await export_member(session, args.guild, args.user, SystemClock().now())
    print(json.dumps(exported, indent=2, ensure_ascii=False))
    return 0


def add(sub: Any) -> None:
    """`paperclub data …`."""
    data = sub.add_parser(
        "data",
        help="a server's or a member's data: delete, export",
        description="What the bot keeps (README: Data the bot keeps): a server's data, a member's data.",
    )
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="DATA_COMMAND")
    delete = data_sub.add_parser(
        "delete",
        help="delete all of a server's data now",
        description="Delete every row the store holds of a server, in one transaction (the bot does so "
        "itself GUILD_DATA_GRACE_DAYS after it is removed from a server). Run it once the bot has left "
        "the server: while it is in it, members and organizers make new data.",
    )
    delete.add_argument("--guild", type=server_id, required=True, help="server id")
    delete.add_argument("--dry-run", action="store_true", help="print what would be deleted; delete nothing")
    delete.set_defaults(handler=_delete)
    export = data_sub.add_parser(
        "export",
        help="a member's data in a server, as JSON",
        description="Print everything the store holds of a member in a server as JSON (what /privacy "
        "shows them, row by row), for a request made outside Discord.",
    )
    export.add_argument("--guild", type=server_id, required=True, help="server id")
    export.add_argument("--user", type=user_id, required=True, help="the member's user id")
    export.set_defaults(handler=_export)
