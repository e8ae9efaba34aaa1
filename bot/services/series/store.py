"""A series in the store: the guild's series settings, creating and finding a series; in the caller's transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.errors import Conflict, NotFound
from bot.ids import leading_id, shown_number
from bot.services.series import rules
from bot.services.series.info import SeriesInfo, series_info
from bot.services.series.rules import SeriesDraft
from bot.text import clean_line
from db.models.series import DEFAULT_HORIZON_WEEKS, DEFAULT_NUDGE_DAYS, Series, SeriesSettings


@dataclass(frozen=True)
class Settings:
    """The guild's series settings: how far ahead to schedule, when to nudge, where."""

    guild_id: int
    horizon_weeks: int = DEFAULT_HORIZON_WEEKS
    nudge_days: int = DEFAULT_NUDGE_DAYS
    organizer_thread_id: int | None = None


async def get_settings(session: AsyncSession, guild_id: int) -> Settings:
    """The guild's series settings (the defaults when it has none)."""
    row = await session.get(SeriesSettings, guild_id)
    if row is None:
        return Settings(guild_id)
    return Settings(guild_id, row.horizon_weeks, row.nudge_days, row.organizer_thread_id)


async def _settings_row(session: AsyncSession, guild_id: int, now: datetime) -> SeriesSettings:
    row = await session.get(SeriesSettings, guild_id)
    if row is None:
        row = SeriesSettings(guild_id=guild_id, created_at=now, updated_at=now)
        session.add(row)
    return row


async def _held(session: AsyncSession, guild_id: int, horizon_weeks: int, now: datetime) -> int:
    active = await active_series(session, guild_id, now)
    return sum(rules.weeks_held(horizon_weeks, info.rule.interval) for info in active)


async def set_horizon(session: AsyncSession, guild_id: int, weeks: int, now: datetime) -> Settings:
    """Weeks ahead that each series has its sessions (and Discord events), within the server's budget."""
    rules.check_horizon(weeks)
    held = await _held(session, guild_id, weeks, now)
    if held > rules.EVENT_BUDGET:
        raise Conflict(
            f"With {weeks} weeks ahead this server's series would hold {held} weeks, each with its Discord "
            f"event; the bot keeps to {rules.EVENT_BUDGET} (Discord allows 100 upcoming events per server). "
            "Pick fewer weeks, or end a series first."
        )
    row = await _settings_row(session, guild_id, now)
    row.horizon_weeks, row.updated_at = weeks, now
    await session.flush()
    return await get_settings(session, guild_id)


async def set_nudge_days(session: AsyncSession, guild_id: int, days: int, now: datetime) -> Settings:
    """Set how many days before an open week the organizers get a nudge."""
    rules.check_nudge_days(days)
    row = await _settings_row(session, guild_id, now)
    row.nudge_days, row.updated_at = days, now
    await session.flush()
    return await get_settings(session, guild_id)


async def set_organizer_thread(
    session: AsyncSession, guild_id: int, thread_id: int, now: datetime, *, replacing: int | None
) -> None:
    """Record the organizers' thread, only if the stored one is still ``replacing`` (None: none yet)."""
    await _settings_row(session, guild_id, now)
    await session.flush()
    stored = SeriesSettings.organizer_thread_id
    await session.execute(
        update(SeriesSettings)
        .where(
            SeriesSettings.guild_id == guild_id,
            stored.is_(None) if replacing is None else stored == replacing,
        )
        .values(organizer_thread_id=thread_id, updated_at=now)
        .execution_options(synchronize_session=False)
    )


async def load_series(session: AsyncSession, guild_id: int, ref: str | int) -> Series:
    """The guild's series named by ``ref``: its number ('3', '#3') or its name (any case); else NotFound."""
    text = str(ref).strip()
    number = ref if isinstance(ref, int) else leading_id(text)
    if number is not None:
        row = await session.get(Series, number, populate_existing=True)
        if row is not None and row.guild_id == guild_id:
            return row
    query = select(Series).where(Series.guild_id == guild_id, Series.name_key == rules.name_key(text))
    if (row := await session.scalar(query.execution_options(populate_existing=True))) is not None:
        return row
    if number is not None:
        raise NotFound(f"There is no series #{shown_number(number)} in this server.")
    shown = clean_line(text)[:60] or "(empty)"
    raise NotFound(f"There is no series called “{shown}” in this server; `/series list` shows them.")


async def get_series(session: AsyncSession, guild_id: int, ref: str | int) -> SeriesInfo:
    """The guild's series ``ref`` names (id or name), as plain values."""
    return series_info(await load_series(session, guild_id, ref))


async def list_series(session: AsyncSession, guild_id: int) -> list[SeriesInfo]:
    """The guild's series, by name."""
    rows = await session.scalars(select(Series).where(Series.guild_id == guild_id).order_by(Series.name_key))
    return [series_info(row) for row in rows]


async def active_series(session: AsyncSession, guild_id: int | None, now: datetime) -> list[SeriesInfo]:
    """Series that have not ended (all guilds when ``guild_id`` is None)."""
    query = select(Series).order_by(Series.guild_id, Series.id)
    if guild_id is not None:
        query = query.where(Series.guild_id == guild_id)
    infos = [series_info(row) for row in await session.scalars(query)]
    return [info for info in infos if not info.has_ended(now)]


async def series_choices(session: AsyncSession, guild_id: int, current: str) -> list[tuple[str, str]]:
    """Autocomplete for a `series` option: '#1 · Thursday paper club · Thursdays 9:30 AM', value the id."""
    typed = rules.name_key(current.lstrip("#"))
    out = []
    for info in await list_series(session, guild_id):
        if typed and typed not in rules.name_key(info.name) and typed != str(info.id):
            continue
        when = f"{timeutil.weekday_name(info.rule.weekday, plural=True)} {timeutil.format_clock(info.rule.start)}"
        out.append((f"#{info.id} · {info.name} · {when}"[:100], str(info.id)))
    return out[:25]


def _columns(draft: SeriesDraft, first: date) -> dict[str, object]:
    rule = draft.rule
    return {
        "name": draft.name,
        "weekday": rule.weekday,
        "start_time": rule.start.strftime("%H:%M"),
        "timezone": rule.zone,
        "interval": rule.interval,
        "first_date": first,
        "anchor_date": rule.anchor,
        "until_date": rule.until,
        "duration_minutes": draft.duration_minutes,
        "signup_url": draft.signup_url,
        "description": draft.description,
        "channel_id": draft.place.channel_id if draft.place else None,
        "channel_name": draft.place.name if draft.place else None,
    }


async def create_series(
    session: AsyncSession,
    guild_id: int,
    draft: SeriesDraft,
    *,
    created_by: int | None,
    now: datetime,
    first: date | None = None,
) -> Series:
    """Store a checked new series; Conflict for a second of the same name, or one over the event budget."""
    key = rules.name_key(draft.name)
    query = select(Series.id, Series.name).where(Series.guild_id == guild_id, Series.name_key == key)
    if (existing := (await session.execute(query)).first()) is not None:
        raise Conflict(
            f"There is already a series called “{existing.name}” (#{existing.id}); pick another name, or "
            "change that one with `/organize series edit`."
        )
    horizon = (await get_settings(session, guild_id)).horizon_weeks
    held = await _held(session, guild_id, horizon, now) + rules.weeks_held(horizon, draft.rule.interval)
    if held > rules.EVENT_BUDGET:
        raise Conflict(
            f"This server's series would hold {held} weeks ahead, each with its Discord event; the bot keeps "
            f"to {rules.EVENT_BUDGET} (Discord allows 100 upcoming events per server). End a series first, "
            "or keep fewer weeks ahead with `/setup series_horizon`."
        )
    row = Series(
        guild_id=guild_id,
        name_key=key,
        sequence=0,
        created_by=created_by,
        created_at=now,
        updated_at=now,
        **_columns(draft, first or draft.rule.anchor),
    )
    session.add(row)
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError:
        raise Conflict(f"A series called “{draft.name}” was just added.") from None
    return row


async def keep_series(
    session: AsyncSession, row: Series, draft: SeriesDraft, first: date, now: datetime
) -> bool:
    """Make a stored series match the programme file's record of it (its weeks stay); True when it changed."""
    values = _columns(draft, first)
    changed = {name for name, value in values.items() if getattr(row, name) != value}
    for name in changed:
        setattr(row, name, values[name])
    if changed:
        row.sequence += 1
        row.updated_at = now
        await session.flush()
    return bool(changed)


async def record_board(
    session: AsyncSession, row: Series, channel_id: int | None, message_id: int | None
) -> None:
    """Remember where a series' open-weeks message is."""
    row.board_channel_id, row.board_message_id = channel_id, message_id
    await session.flush()
