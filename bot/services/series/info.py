"""A series and its weeks as plain values, and what a change did (the sessions to publish)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time

from bot.services.series.rules import Rule
from bot.services.sessions.info import SessionInfo
from bot.timeutil import DisplayZone
from db.base import from_row
from db.models.series import WEEK_SCHEDULED, WEEK_SKIPPED, Series


@dataclass(frozen=True)
class SeriesInfo:
    """A series as plain values."""

    id: int
    guild_id: int
    name: str
    rule: Rule
    duration_minutes: int
    signup_url: str | None
    description: str | None
    sequence: int
    board_channel_id: int | None
    board_message_id: int | None
    channel_id: int | None = None  # its weeks' voice or stage channel

    def has_ended(self, now: datetime) -> bool:
        """Whether the series' last week is before today."""
        return self.rule.until is not None and self.rule.until < self.rule.today(now)


def series_info(row: Series) -> SeriesInfo:
    """A series row as plain values."""
    return from_row(SeriesInfo, row, rule=series_rule(row))


def series_rule(row: Series) -> Rule:
    """A series row's meeting rule."""
    return Rule(
        weekday=row.weekday,
        start=time.fromisoformat(row.start_time),
        zone=row.timezone,
        interval=row.interval,
        anchor=row.anchor_date,
        until=row.until_date,
    )


@dataclass(frozen=True)
class WeekInfo:
    """One week: ``regular_start`` is when the rule puts it; ``session`` its session once it has one."""

    week_date: date
    status: str
    regular_start: datetime
    skip_reason: str | None = None
    session: SessionInfo | None = None

    @property
    def is_skipped(self) -> bool:
        """Whether the week is skipped."""
        return self.status == WEEK_SKIPPED

    @property
    def is_scheduled(self) -> bool:
        """Whether the week is scheduled."""
        return self.status == WEEK_SCHEDULED

    @property
    def starts_at(self) -> datetime:
        """When the week's session starts (its rule's time when it has none)."""
        return self.session.starts_at if self.session is not None else self.regular_start

    @property
    def is_moved(self) -> bool:
        """Whether the week's session starts at another time than its rule's."""
        return self.session is not None and self.session.starts_at != self.regular_start

    @property
    def has_presenter(self) -> bool:
        """Whether the week's session has a presenter."""
        return self.session is not None and bool(self.session.presenter_id or self.session.presenter_name)

    @property
    def has_paper(self) -> bool:
        """Whether the week's session has a paper."""
        return self.session is not None and bool(self.session.papers)

    @property
    def is_open(self) -> bool:
        """Scheduled, with its session, and nobody presents yet: members may claim it."""
        return self.is_scheduled and self.session is not None and not self.has_presenter


@dataclass
class Changes:
    """What a change did to the series' sessions, for Discord to follow, and ``notes`` for the reply."""

    saved: list[int] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SeriesCard:
    """A series as /series show draws it: its coming weeks, in the server's zones, ``horizon`` weeks ahead."""

    info: SeriesInfo
    weeks: list[WeekInfo]
    zones: Sequence[DisplayZone]
    horizon: int
    now: datetime
