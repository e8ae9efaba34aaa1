"""`paperclub site build`: the club's website as static files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bot.cli.common import CommandFailed, command_settings, opened_store, server_id


async def _site_build(args: argparse.Namespace) -> int:
    from bot.clock import SystemClock
    from bot.errors import NotConfigured
    from bot.services.site.build import build_site
    from db.engine import create_session_factory

    settings = command_settings()
    async with opened_store(settings) as engine:
        try:
            report = await build_site(
                create_session_factory(engine),
                args.guild,
                Path(args.out_dir),
                now=SystemClock().now(),
                base_url=args.base_url,
                grace_days=settings.guild_data_grace_days,
            )
        except NotConfigured as exc:
            raise CommandFailed(exc.user_message) from None
        except OSError as exc:
            raise CommandFailed(f"cannot write {args.out_dir} ({exc.strerror or exc})") from None
    print(
        f"wrote {report.files} files to {report.out_dir} (site /{report.slug}/: "
        f"{report.sessions} session pages, {report.lists} reading lists)"
    )
    return 0


def add(sub: Any) -> None:
    """`paperclub site …`."""
    site = sub.add_parser("site", help="the club's website", description="The club's public website.")
    site_sub = site.add_subparsers(dest="site_command", required=True, metavar="SITE_COMMAND")
    build = site_sub.add_parser(
        "build",
        help="write the website as static files",
        description="Write a server's website (pages, calendar.ics, feed.atom) as static files to OUT_DIR.",
    )
    build.add_argument("--guild", type=server_id, required=True, help="server id (its website must be on)")
    build.add_argument("out_dir", metavar="OUT_DIR", help="folder to write (created if missing)")
    build.add_argument(
        "--base-url",
        default=None,
        help="the address the folder is served at, e.g. https://club.example.org/paper-club/ (for link "
        "previews' og:url and the webcal:// link; without it the pages carry no og:url)",
    )
    build.set_defaults(handler=_site_build)
