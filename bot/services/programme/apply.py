"""A validated programme written through each feature's own service, in the caller's one transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from bot.errors import PaperclubError
from bot.papers import normalize_title
from bot.services.config.guild import get_config, update_config
from bot.services.papers.store import aliased_paper, find_paper, get_or_create_paper
from bot.services.programme import aliases as alias_programme
from bot.services.programme import website as website_programme
from bot.services.programme.checks import Problem, ProgrammeInvalid
from bot.services.programme.document import Programme, ProgrammePaper, ProgrammeSession, stored_settings
from bot.services.programme.series import SETTINGS as SERIES_SETTINGS
from bot.services.programme.series import ProgrammeSeries
from bot.services.reading.lists import replace_list
from bot.services.series import store as series_store
from bot.services.series import weeks
from bot.services.series.rules import SeriesDraft
from bot.services.sessions import store as sessions
from bot.services.sessions.info import CANCELLED, SCHEDULED
from bot.services.sessions.rules import UNSET, Place, SessionChanges, SessionDraft
from db.base import utcnow
from db.models import ClubSession, Paper
from db.models.series import Series
from db.models.sessions import AGAINST, MAIN


@dataclass
class Tally:
    """How many of one kind an import created, changed and left as they were."""

    new: int = 0
    changed: int = 0
    same: int = 0

    def count(self, created: bool, changed: bool) -> None:
        """Count one row."""
        if created:
            self.new += 1
        elif changed:
            self.changed += 1
        else:
            self.same += 1

    def __str__(self) -> str:
        return f"{self.new} new, {self.changed} changed, {self.same} unchanged"


@dataclass
class ImportReport:
    """What an import created, changed and left as it was."""

    sessions: Tally = field(default_factory=Tally)
    papers: Tally = field(default_factory=Tally)
    lists: Tally = field(default_factory=Tally)
    series: Tally = field(default_factory=Tally)
    aliases: Tally = field(default_factory=Tally)
    settings_changed: bool = False
    website_changed: bool = False

    @property
    def changed_anything(self) -> bool:
        """Whether the import changed anything."""
        tallies = (self.sessions, self.papers, self.lists, self.series, self.aliases)
        return self.settings_changed or self.website_changed or any(t.new or t.changed for t in tallies)

    def summary(self, guild_id: int) -> str:
        """The import's outcome as one line for the guild."""
        if not self.changed_anything:
            return f"guild {guild_id}: nothing to change; the store already matches the file."
        series, aliases = self.series, self.aliases
        return (
            f"guild {guild_id}: sessions {self.sessions}; "
            f"papers {self.papers.new} new, {self.papers.changed} changed; lists {self.lists}; "
            f"settings {'changed' if self.settings_changed else 'unchanged'}; "
            f"website {'changed' if self.website_changed else 'unchanged'}"
            + (f"; series {series}." if series.new or series.changed or series.same else ".")
            + (
                f" Aliases {aliases.new} new, {aliases.changed} changed."
                if aliases.new or aliases.changed
                else ""
            )
        )


class _Papers:
    """Papers by key for one import: created or updated once, whichever row mentions them first."""

    def __init__(self, session: AsyncSession, guild_id: int, tally: Tally) -> None:
        self.session, self.guild_id, self.tally = session, guild_id, tally
        self.done: dict[str, Paper] = {}

    async def get(self, given: ProgrammePaper) -> Paper:
        if given.ref.key in self.done:
            return self.done[given.ref.key]
        existing = await find_paper(self.session, self.guild_id, given.ref)
        aliased = None if existing else await aliased_paper(self.session, self.guild_id, given.ref)
        if aliased is not None:  # a name the guild resolved: the paper it means, its own title kept
            self.done[given.ref.key] = aliased
            return aliased
        row = existing or await get_or_create_paper(self.session, self.guild_id, given.ref, title=given.title)
        changed = False
        if given.title and row.title != given.title:
            row.title, row.normalized_title = given.title, normalize_title(given.title)[:400]
            changed = True
        if given.authors is not None and row.authors != given.authors:
            row.authors = given.authors
            changed = True
        self.tally.count(existing is None, changed)
        self.done[given.ref.key] = row
        return row


def _refused(line: int | None, where: str, error: PaperclubError) -> ProgrammeInvalid:
    """A feature's refusal as a problem of the file, so nothing of the import is written."""
    return ProgrammeInvalid([Problem(line, where, error.user_message)])


async def _settings(session: AsyncSession, programme: Programme, now: datetime) -> bool:
    """The file's settings through the guild's and the series' services; True when any changed."""
    guild_id, given = programme.guild_id, programme.settings
    changed = False
    series = await series_store.get_settings(session, guild_id)
    weeks_ahead, days = given.get("series_horizon_weeks"), given.get("series_nudge_days")
    try:
        if isinstance(weeks_ahead, int) and weeks_ahead != series.horizon_weeks:
            await series_store.set_horizon(session, guild_id, weeks_ahead, now)
            changed = True
        if isinstance(days, int) and days != series.nudge_days:
            await series_store.set_nudge_days(session, guild_id, days, now)
            changed = True
    except PaperclubError as refused:
        raise _refused(None, "settings.series_horizon_weeks", refused) from None
    current = stored_settings(await get_config(session, guild_id))
    changes = {k: v for k, v in given.items() if k not in SERIES_SETTINGS and current.get(k) != v}
    if changes:
        await update_config(session, guild_id, **changes)
    return changed or bool(changes)


async def _series(
    session: AsyncSession, guild_id: int, given: list[ProgrammeSeries], tally: Tally, now: datetime
) -> dict[str, Series]:
    """The file's series through the series service, by name; the rows by name key."""
    by_key: dict[str, Series] = {}
    for item in given:
        place = Place(item.channel_id) if item.channel_id is not None else None
        draft = SeriesDraft(
            item.name, item.rule, item.duration_minutes, item.signup_url, item.description, place=place
        )
        row = await session.scalar(
            select(Series).where(Series.guild_id == guild_id, Series.name_key == item.key)
        )
        created = row is None
        try:
            if row is None:
                row = await series_store.create_series(
                    session, guild_id, draft, created_by=None, now=now, first=item.first
                )
                changed = False
            else:
                changed = await series_store.keep_series(session, row, draft, item.first, now)
        except PaperclubError as refused:
            raise _refused(item.line, f"series (“{item.name[:60]}”)", refused) from None
        skipped = False
        for day, reason in item.skipped:
            skipped = await weeks.keep_skipped(session, row, day, reason, now) or skipped
        if skipped and not created and not changed:
            row.sequence, row.updated_at = row.sequence + 1, now
        changed = changed or skipped
        tally.count(created, changed)
        by_key[item.key] = row
    await session.flush()
    return by_key


async def _find_session(session: AsyncSession, guild_id: int, given: ProgrammeSession) -> ClubSession | None:
    """The stored session the file's one is: same title and start (for one dated only, that day's one)."""
    wanted = normalize_title(given.title)
    query = (
        select(ClubSession).where(ClubSession.guild_id == guild_id).options(selectinload(ClubSession.papers))
    )
    exact = [
        row
        for row in await session.scalars(query.where(ClubSession.starts_at == given.starts_at))
        if normalize_title(row.title) == wanted
    ]
    if exact or not given.fields.get("date_only"):
        return exact[0] if exact else None
    first, last = given.starts_at - timedelta(hours=12), given.starts_at + timedelta(hours=12)
    near = [
        row
        for row in await session.scalars(
            query.where(ClubSession.starts_at > first, ClubSession.starts_at < last).limit(3)
        )
        if normalize_title(row.title) == wanted
    ]
    return near[0] if len(near) == 1 else None


async def _session(
    session: AsyncSession,
    guild_id: int,
    given: ProgrammeSession,
    papers: _Papers,
    default_zone: str,
    now: datetime,
) -> tuple[int, bool, bool]:
    """One session through the sessions service: (id, created, changed)."""
    fields = {k: v for k, v in given.fields.items() if k not in sessions.RECORD}
    record = {k: v for k, v in given.fields.items() if k in sessions.RECORD}
    rows = [await papers.get(p) for p in given.papers] if given.papers is not None else None
    refs = tuple(p.ref for p in given.papers or ())
    against = tuple(given.against)
    row = await _find_session(session, guild_id, given)
    if row is None:
        draft = SessionDraft(
            title=given.title,
            starts_at=given.starts_at,
            timezone=fields.pop("timezone", default_zone),
            papers=refs,
            against=against,
            **fields,
        )
        created = await sessions.create_session(session, guild_id, draft, created_by=None, now=now)
        if any(value not in (None, False, SCHEDULED) for value in record.values()):
            await sessions.keep_record(session, guild_id, created.info.id, record, now=now)
        return created.info.id, True, False
    wanted = [
        (r.id, AGAINST if ref.key in given.against else MAIN) for r, ref in zip(rows or (), refs, strict=True)
    ]
    new_papers = rows is not None and wanted != [(link.paper_id, link.role) for link in row.papers]
    changes = SessionChanges(
        title=given.title,
        starts_at=given.starts_at,
        papers=refs if new_papers else UNSET,
        against=against,
        **fields,
    )
    edits = new_papers or any(getattr(row, k) != v for k, v in changes.columns().items())
    status = record.get("status", row.status)
    changed = False
    if edits:
        if row.status == CANCELLED:  # an edit of a cancelled session: scheduled for it, cancelled again below
            await sessions.keep_record(session, guild_id, row.id, {"status": SCHEDULED}, now=now)
        changed = bool((await sessions.edit_session(session, guild_id, row.id, changes, now=now)).changed)
    record = {**record, "status": status}
    changed = await sessions.keep_record(session, guild_id, row.id, record, now=now) or changed
    return row.id, False, changed


async def apply_programme(session: AsyncSession, programme: Programme) -> ImportReport:
    """Write a validated programme (caller's transaction); a feature's refusal raises ProgrammeInvalid."""
    guild_id, now = programme.guild_id, utcnow()
    report = ImportReport()
    papers = _Papers(session, guild_id, report.papers)
    report.settings_changed = await _settings(session, programme, now)
    series_rows = await _series(session, guild_id, programme.series, report.series, now)
    report.aliases.new, report.aliases.changed = await alias_programme.apply_aliases(
        session, guild_id, programme.aliases, now
    )
    report.website_changed = await website_programme.apply_website(session, guild_id, programme.website, now)
    default_zone = (await get_config(session, guild_id)).timezone
    for index, given in enumerate(programme.sessions):
        try:
            session_id, created, changed = await _session(session, guild_id, given, papers, default_zone, now)
        except PaperclubError as refused:
            raise _refused(given.line, f"sessions[{index + 1}] (“{given.title[:60]}”)", refused) from None
        if given.week is not None:
            key, day = given.week
            changed = (
                await weeks.keep_week_session(session, series_rows[key], day, session_id, now) or changed
            )
        report.sessions.count(created, changed)
    for given_list in programme.lists:
        wanted = [((await papers.get(p)).id, p.note) for p in given_list.papers]
        written = await replace_list(
            session,
            guild_id,
            given_list.name,
            wanted,
            description=given_list.description,
            keep_description=not given_list.has_description,
            now=now,
        )
        report.lists.count(written.created, written.changed)
    return report
