"""queries.announced_with_papers (SQLite and PostgreSQL): only announced sessions still to come, not
cancelled, that read one of the papers, are re-rendered when the papers' sources' fields land."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.papers import parse_paper_ref
from bot.services.papers.store import get_or_create_paper
from bot.services.sessions.queries import announced_with_papers
from db.models import ClubSession, SessionPaper

GUILD = 77
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


async def test_only_upcoming_announced_sessions_reading_the_papers(session_factory) -> None:
    async with session_factory() as db, db.begin():
        paper = await get_or_create_paper(db, GUILD, parse_paper_ref("2401.12345"))
        other = await get_or_create_paper(db, GUILD, parse_paper_ref("2401.99999"))
        for title, delta, status, message, read in [
            ("upcoming", timedelta(days=2), "scheduled", 1, paper),
            ("past", -timedelta(days=2), "scheduled", 2, paper),
            ("cancelled", timedelta(days=3), "cancelled", 3, paper),
            ("unannounced", timedelta(days=4), "scheduled", None, paper),
            ("another paper", timedelta(days=5), "scheduled", 5, other),
        ]:
            db.add(
                ClubSession(
                    guild_id=GUILD,
                    title=title,
                    starts_at=NOW + delta,
                    timezone="UTC",
                    status=status,
                    announcement_channel_id=9 if message else None,
                    announcement_message_id=message,
                    papers=[SessionPaper(paper_id=read.id, position=0)],
                )
            )
        paper_id = paper.id
    async with session_factory() as db:
        found = await announced_with_papers(db, GUILD, [paper_id], NOW)
        assert [info.title for info in found] == ["upcoming"]
        assert await announced_with_papers(db, GUILD, [], NOW) == []
