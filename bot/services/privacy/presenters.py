"""Presenter history: the sessions a member presents or presented. Deleting keeps each session and drops the
member's name from it, unless the server's club page shows it: then the name stays (the reply says so).

"Shown on the club page": the server's website is on (``/setup website enabled:True`` with an address,
as :attr:`bot.services.site.config.SiteConfig.live` says), and every session of a server whose site is on
has its page there, naming its presenter (``sessions/<id>/``). Read here from the site's model, as the
site's own ``live_site`` does.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.services.privacy.rows import SESSION, Erased, Follow, Who, as_json, count
from db.models import ClubSession
from db.models.site import SiteSettings


async def public_guilds(session: AsyncSession, guild_ids: set[int]) -> set[int]:
    """Which of these servers show their sessions on a club page (their website is on)."""
    if not guild_ids:
        return set()
    rows = await session.scalars(
        select(SiteSettings.guild_id).where(
            SiteSettings.guild_id.in_(sorted(guild_ids)),
            SiteSettings.enabled.is_(True),
            SiteSettings.slug.is_not(None),
        )
    )
    return {int(g) for g in rows}


class PresenterHistory:
    """The sessions whose presenter is the member (the series' weeks they claimed among them)."""

    def _scope(self, who: Who) -> list[Any]:
        return [ClubSession.presenter_id == who.user_id, who.within(ClubSession.guild_id)]

    def counting(self, who: Who) -> list[Select[Any]]:
        """How many sessions, per server."""
        return [
            select(ClubSession.guild_id.label("guild"), func.count().label("n"))
            .where(*self._scope(who))
            .group_by(ClubSession.guild_id)
        ]

    async def count(self, session: AsyncSession, who: Who) -> dict[int, int]:
        """How many sessions, per server."""
        return await count(session, self.counting(who))

    async def export(self, session: AsyncSession, who: Who) -> list[dict[str, Any]]:
        """Each session: its id, title, time, status, the name shown, and whether a club page shows it."""
        rows = (
            await session.execute(
                select(
                    ClubSession.id,
                    ClubSession.guild_id,
                    ClubSession.title,
                    ClubSession.starts_at,
                    ClubSession.status,
                    ClubSession.presenter_name,
                )
                .where(*self._scope(who))
                .order_by(ClubSession.starts_at, ClubSession.id)
            )
        ).all()
        public = await public_guilds(session, {int(r.guild_id) for r in rows})
        return [
            {
                "table": "sessions",
                "id": r.id,
                "guild_id": r.guild_id,
                "title": r.title,
                "starts_at": as_json(r.starts_at),
                "status": r.status,
                "presenter_name": r.presenter_name,
                "on_the_club_page": r.guild_id in public,
            }
            for r in rows
        ]

    async def erase(self, session: AsyncSession, who: Who, now: datetime) -> Erased:
        """Drop the member as presenter of every session no club page shows; count the ones left."""
        counts = await self.count(session, who)
        public = await public_guilds(session, set(counts))
        erased = Erased(kept=sum(n for g, n in counts.items() if g in public))
        hidden = sorted(set(counts) - public)
        if not hidden:
            return erased
        changed = (
            await session.execute(
                update(ClubSession)
                .where(*self._scope(who), ClubSession.guild_id.in_(hidden))
                .values(
                    presenter_id=None,
                    presenter_name=None,
                    sequence=ClubSession.sequence + 1,  # calendar apps take the change
                    updated_at=now,
                )
                .returning(ClubSession.id, ClubSession.guild_id)
                .execution_options(synchronize_session=False)
            )
        ).all()
        erased.count = len(changed)
        erased.follow = {Follow(SESSION, int(g), int(i)) for i, g in changed}
        return erased
