"""``paperclub site build``: the pages as static files (no search page, no personal feeds)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import NotConfigured
from bot.services.calendars.ics import series_calendars
from bot.services.site import feeds, pages, render
from bot.services.site.config import get_site, live_site
from db.models import ClubSession, Paper
from db.models.privacy import DEFAULT_GRACE_DAYS
from db.models.reading import ReadingList


@dataclass(frozen=True)
class BuildReport:
    """What a static site build wrote: where, how many files, sessions and lists, for which slug."""

    out_dir: Path
    files: int
    sessions: int
    lists: int
    slug: str


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a temporary file beside it, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".paperclub-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


async def build_site(
    session_factory: async_sessionmaker[AsyncSession],
    guild_id: int,
    out_dir: Path,
    *,
    now: datetime,
    base_url: str | None = None,
    grace_days: int = DEFAULT_GRACE_DAYS,
) -> BuildReport:
    """Write the guild's site into ``out_dir``; NotConfigured while its website is off."""
    written = 0

    def put(relative: str, data: bytes | str) -> None:
        nonlocal written
        _write(out_dir / relative, data.encode("utf-8") if isinstance(data, str) else data)
        written += 1

    async with session_factory() as session:
        site = await get_site(session, guild_id)
        if not site.live or site.slug is None:
            raise NotConfigured(
                f"server {guild_id} has not turned its website on: run /setup website enabled:True slug:… first"
            )
        live = await live_site(session, site.slug)
        assert live is not None
        home = await pages.home_page(session, live, now)
        put("index.html", render.home_html(home, base_url=base_url, static=True))
        counts = []
        for folder, model, read, show in (
            ("sessions", ClubSession, pages.session_page, render.session_html),
            ("lists", ReadingList, pages.list_page, render.list_html),
            ("papers", Paper, pages.paper_page, render.paper_html),
        ):
            ids = list(
                await session.scalars(select(model.id).where(model.guild_id == guild_id).order_by(model.id))
            )
            for row_id in ids:
                page: Any = await read(session, live, row_id, now)
                if page is not None:
                    put(f"{folder}/{row_id}/index.html", show(page, base_url=base_url, static=True))
            counts.append(len(ids))
        number = 1
        while (archive := await pages.archive_page(session, live, number, now)) is not None:
            where = "past/index.html" if number == 1 else f"past/{number}/index.html"
            put(where, render.archive_html(archive, base_url=base_url, static=True))
            number += 1
        kept = pages.privacy_page(live, now, grace_days=grace_days)
        put("privacy/index.html", render.privacy_html(kept, base_url=base_url, static=True))
        infos, changed = await feeds.calendar_sessions(session, guild_id, now)
        series = await series_calendars(session, guild_id, now)
        put("calendar.ics", feeds.ics_feed(infos, changed, name=site.title, series=series, base_url=base_url))
        view, entries = await feeds.atom_entries(session, live, now)
        put("feed.atom", feeds.atom_feed(view, entries))
    for name in render.STATIC_FILES:
        put(name, render.static_file(name))
    put("404.html", render.not_found_html())
    return BuildReport(out_dir, written, counts[0], counts[1], site.slug)
