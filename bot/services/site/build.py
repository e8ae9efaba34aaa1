"""``paperclub site build``: the same pages as static files, for GitHub Pages or any static host.

The folder holds ``index.html``, ``sessions/<id>/index.html``, ``lists/<id>/index.html``,
``papers/<id>/index.html``, ``past/…``, ``privacy/index.html``,
``calendar.ics``, ``feed.atom``, the stylesheet and script, and ``404.html``. Links are relative, so it works
wherever it is served. There is no search page (it needs the server) and no personal feeds (secret).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.errors import NotConfigured
from bot.services.calendars.ics import series_calendars
from bot.services.site import feed_reads, feeds, pages, paper_page, privacy_page, render
from bot.services.site.config import get_site
from db.models import Paper
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
    """Write the guild's site into ``out_dir``; NotConfigured while its website is off (``grace_days``:
    GUILD_DATA_GRACE_DAYS, said on the privacy page)."""
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
        home = await pages.home_page(session, site, now)
        put("index.html", render.home_html(home, base_url=base_url, static=True))
        session_ids = await feed_reads.all_session_ids(session, guild_id)
        for session_id in session_ids:
            page = await pages.session_page(session, site, session_id, now)
            if page is not None:
                put(
                    f"sessions/{session_id}/index.html",
                    render.session_html(page, base_url=base_url, static=True),
                )
        list_ids = list(await session.scalars(select(ReadingList.id).where(ReadingList.guild_id == guild_id)))
        for list_id in list_ids:
            listed = await pages.list_page(session, site, list_id, now)
            if listed is not None:
                put(f"lists/{list_id}/index.html", render.list_html(listed, base_url=base_url, static=True))
        paper_ids = list(await session.scalars(select(Paper.id).where(Paper.guild_id == guild_id)))
        for paper_id in paper_ids:
            shown = await paper_page.paper_page(session, site, paper_id, now)
            if shown is not None:
                put(f"papers/{paper_id}/index.html", render.paper_html(shown, base_url=base_url, static=True))
        number = 1
        while (archive := await pages.archive_page(session, site, number, now)) is not None:
            where = "past/index.html" if number == 1 else f"past/{number}/index.html"
            put(where, render.archive_html(archive, base_url=base_url, static=True))
            number += 1
        kept = await privacy_page.privacy_page(session, site, now, grace_days=grace_days)
        put("privacy/index.html", render.privacy_html(kept, base_url=base_url, static=True))
        infos, changed = await feed_reads.calendar_sessions(session, guild_id, now)
        series = await series_calendars(session, guild_id, now)
        put("calendar.ics", feeds.ics_feed(infos, changed, name=site.title, series=series, base_url=base_url))
        view, entries = await feed_reads.atom_entries(session, site, now)
        put("feed.atom", feeds.atom_feed(view, entries))
    for name in render.STATIC_FILES:
        put(name, render.static_file(name))
    put("404.html", render.not_found_html())
    return BuildReport(out_dir, written, len(session_ids), len(list_ids), site.slug)
