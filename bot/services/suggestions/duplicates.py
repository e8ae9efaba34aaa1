"""Is this paper already on the club's table: the same key, or a near-identical title (:class:`TitleIndex`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from rapidfuzz import fuzz, process
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.papers import PaperRef, normalize_title, titles_match
from bot.services.suggestions.queries import message_url
from db.models import ClubSession, Paper, SessionPaper
from db.models.suggestions import ACTIVE_STATUSES, Suggestion

FUZZY_CUTOFF = 90.0  # rapidfuzz ratio, 0–100
FUZZY_CANDIDATES = 5


@dataclass
class _GuildTitles:
    ids: list[int] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    positions: dict[int, int] = field(default_factory=dict)  # paper id -> index in the lists
    max_id: int = 0
    loaded_at: datetime | None = None


class TitleIndex:
    """Normalised titles of every paper, per guild, for fuzzy look-ups in a few milliseconds (ids and titles only)."""

    def __init__(self, reload_every: timedelta = timedelta(minutes=10)) -> None:
        self.reload_every = reload_every
        self._guilds: dict[int, _GuildTitles] = {}

    def forget(self, guild_id: int | None = None) -> None:
        """Drop the index of one guild (None: of every guild); it is rebuilt on the next use."""
        if guild_id is None:
            self._guilds.clear()
        else:
            self._guilds.pop(guild_id, None)

    def note_title(self, guild_id: int, paper_id: int, normalized_title: str) -> None:
        """A paper's title changed in this process: update it in place (new papers arrive by themselves)."""
        entry = self._guilds.get(guild_id)
        if entry is None:
            return
        position = entry.positions.get(paper_id)
        if position is not None:
            entry.titles[position] = normalized_title

    async def _refresh(self, session: AsyncSession, guild_id: int, now: datetime) -> _GuildTitles:
        entry = self._guilds.get(guild_id)
        if entry is None or entry.loaded_at is None or now - entry.loaded_at >= self.reload_every:
            entry = _GuildTitles(loaded_at=now)
            self._guilds[guild_id] = entry
        rows = (
            await session.execute(
                select(Paper.id, Paper.normalized_title)
                .where(Paper.id > entry.max_id, Paper.guild_id == guild_id)
                .order_by(Paper.id)
            )
        ).all()
        for paper_id, title in rows:
            entry.positions[paper_id] = len(entry.ids)
            entry.ids.append(paper_id)
            entry.titles.append(title)
        if rows:
            entry.max_id = rows[-1][0]
        return entry

    async def similar(
        self, session: AsyncSession, guild_id: int, title: str, now: datetime, limit: int = FUZZY_CANDIDATES
    ) -> list[int]:
        """Ids of the guild's papers whose normalised title scores ≥ 90 against ``title``, best first."""
        normalized = normalize_title(title)
        if not normalized:
            return []
        entry = await self._refresh(session, guild_id, now)
        matches = process.extract(
            normalized, entry.titles, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF, limit=limit
        )
        return [entry.ids[index] for _, _, index in matches]


@dataclass(frozen=True)
class PaperStanding:
    """Where a paper stands in the club: suggested, read, scheduled (any of them may be None)."""

    paper_title: str
    suggestion_id: int | None = None
    submitter_id: int | None = None
    suggested_at: datetime | None = None
    post_url: str | None = None  # the standing suggestion's post
    read_at: datetime | None = None
    read_session_title: str | None = None
    scheduled_at: datetime | None = None
    scheduled_session_title: str | None = None

    @property
    def taken(self) -> bool:
        """Whether the paper is suggested, read or on the programme already."""
        return self.suggestion_id is not None or self.read_at is not None or self.scheduled_at is not None


async def paper_standings(
    session: AsyncSession, guild_id: int, paper_ids: list[int], now: datetime
) -> dict[int, PaperStanding]:
    """Standing of each paper id (all in ``guild_id``), in two indexed queries."""
    if not paper_ids:
        return {}
    # Primary-key and paper_id look-ups only: a guild_id condition here would tempt the planner
    # into scanning the guild's whole index (50,000 rows in the bench) instead.
    standings = {
        row.id: PaperStanding(row.title)
        for row in (
            await session.execute(
                select(Paper.id, Paper.title, Paper.guild_id).where(Paper.id.in_(paper_ids))
            )
        )
        if row.guild_id == guild_id
    }
    suggestions = await session.execute(
        select(
            Suggestion.paper_id,
            Suggestion.id,
            Suggestion.submitter_id,
            Suggestion.created_at,
            Suggestion.channel_id,
            Suggestion.message_id,
        ).where(Suggestion.paper_id.in_(list(standings)), Suggestion.status.in_(ACTIVE_STATUSES))
    )
    for row in suggestions:
        standings[row.paper_id] = replace(
            standings[row.paper_id],
            suggestion_id=row.id,
            submitter_id=row.submitter_id or None,  # 0: a member who deleted their data
            suggested_at=row.created_at,
            post_url=message_url(guild_id, row.channel_id, row.message_id),
        )
    session_rows = await session.execute(
        select(SessionPaper.paper_id, ClubSession.starts_at, ClubSession.title)
        .join(ClubSession, ClubSession.id == SessionPaper.session_id)
        .where(
            SessionPaper.paper_id.in_(list(standings)),
            ClubSession.guild_id == guild_id,
            ClubSession.status != "cancelled",
        )
        .order_by(ClubSession.starts_at)
    )
    for paper_id, starts_at, title in session_rows:
        standing = standings[paper_id]
        if starts_at <= now:  # ascending: the latest past session wins
            standings[paper_id] = replace(standing, read_at=starts_at, read_session_title=title)
        elif standing.scheduled_at is None:  # the next upcoming one
            standings[paper_id] = replace(standing, scheduled_at=starts_at, scheduled_session_title=title)
    return standings


async def find_duplicate(
    session: AsyncSession,
    guild_id: int,
    ref: PaperRef,
    title: str | None,
    now: datetime,
    index: TitleIndex,
) -> PaperStanding | None:
    """The standing paper this suggestion duplicates, by key first and then by fuzzy title."""
    same_key = (
        await session.execute(select(Paper.id).where(Paper.guild_id == guild_id, Paper.key == ref.key))
    ).scalar_one_or_none()
    if same_key is not None:
        standing = (await paper_standings(session, guild_id, [same_key], now)).get(same_key)
        if standing is not None and standing.taken:
            return standing
    if not title:
        return None
    candidate_ids = [pid for pid in await index.similar(session, guild_id, title, now) if pid != same_key]
    if not candidate_ids:
        return None
    standings = await paper_standings(session, guild_id, candidate_ids, now)
    for pid in candidate_ids:  # best score first; the stored title is checked again (digits must agree)
        standing = standings.get(pid)
        if standing is not None and standing.taken and titles_match(title, standing.paper_title):
            return standing
    return None
