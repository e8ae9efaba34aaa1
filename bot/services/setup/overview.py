"""What /setup show prints: the guild's, website's and series' settings read in one statement, the settings
as an organizer reads them, and the steps still missing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sqlalchemy import BigInteger, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot import timeutil
from bot.services.config.guild import GuildConfig, config_from_row
from bot.services.series.store import Settings as SeriesSettingsValues
from bot.services.site.config import DEFAULT_TITLE, SiteConfig
from db.models import GuildSettings
from db.models.series import SeriesSettings
from db.models.site import SiteSettings


@dataclass(frozen=True)
class SetupOverview:
    """Everything /setup show prints for a guild."""

    config: GuildConfig
    site: SiteConfig
    series: SeriesSettingsValues


_GUILD = GuildSettings.__table__.c
_SITE = SiteSettings.__table__.c
_SERIES = SeriesSettings.__table__.c
_ANCHOR = select(bindparam("guild_id", type_=BigInteger).label("guild_id")).subquery("wanted")

#: Built once. The guild's columns keep their names (``config_from_row`` reads them); the others are
#: prefixed. A table without the guild's row gives NULLs there, read as that feature's defaults.
_OVERVIEW: Final = (
    select(
        _GUILD.guild_id,
        _GUILD.announcements_channel_id,
        _GUILD.suggestions_channel_id,
        _GUILD.organizer_role_id,
        _GUILD.ping_role_id,
        _GUILD.timezone,
        _GUILD.display_zones,
        _GUILD.reminder_offsets,
        _GUILD.suggestion_topics,
        _SITE.guild_id.label("site_guild_id"),
        _SITE.enabled.label("site_enabled"),
        _SITE.slug.label("site_slug"),
        _SITE.title.label("site_title"),
        _SITE.about.label("site_about"),
        _SITE.updated_at.label("site_updated_at"),
        _SERIES.guild_id.label("series_guild_id"),
        _SERIES.horizon_weeks.label("series_horizon_weeks"),
        _SERIES.nudge_days.label("series_nudge_days"),
        _SERIES.organizer_thread_id.label("series_organizer_thread_id"),
    )
    .select_from(_ANCHOR)
    .outerjoin(GuildSettings.__table__, _GUILD.guild_id == _ANCHOR.c.guild_id)
    .outerjoin(SiteSettings.__table__, _SITE.guild_id == _ANCHOR.c.guild_id)
    .outerjoin(SeriesSettings.__table__, _SERIES.guild_id == _ANCHOR.c.guild_id)
)


async def read_overview(session: AsyncSession, guild_id: int) -> SetupOverview:
    """The guild's settings, website and series settings (each with its defaults when never set)."""
    row = (await (await session.connection()).execute(_OVERVIEW, {"guild_id": guild_id})).one()
    config = config_from_row(row if row.guild_id is not None else None, guild_id)
    if row.site_guild_id is None:
        site = SiteConfig(guild_id, False, None, DEFAULT_TITLE, None)
    else:
        site = SiteConfig(
            guild_id, row.site_enabled, row.site_slug, row.site_title, row.site_about, row.site_updated_at
        )
    if row.series_guild_id is None:
        series = SeriesSettingsValues(guild_id)
    else:
        series = SeriesSettingsValues(
            guild_id, row.series_horizon_weeks, row.series_nudge_days, row.series_organizer_thread_id
        )
    return SetupOverview(config, site, series)


NEXT_STEPS: Final = (
    ("announcements_channel_id", "/setup announcements", "where sessions are announced"),
    ("suggestions_channel_id", "/setup suggestions", "where members' suggestions are posted"),
    ("organizer_role_id", "/setup organizer_role", "who may run the club's organizer commands"),
    ("ping_role_id", "/setup ping_role", "the role session reminders ping"),
)


def next_steps(config: GuildConfig) -> list[tuple[str, str]]:
    """The set-up commands still to run, in order, each with what it sets (none once all are set)."""
    return [(command, what) for name, command, what in NEXT_STEPS if getattr(config, name) is None]


def zones_text(config: GuildConfig) -> str:
    """The display zones as the club writes them: "PT, London, IST"."""
    return ", ".join(
        zone.label or zone.zone.rsplit("/", 1)[-1].replace("_", " ") for zone in config.display_zones
    )


def reminders_text(config: GuildConfig) -> str:
    """When reminders go out: "24 hours and 1 hour before each session"."""
    times = [
        timeutil.format_duration(round(offset.total_seconds() / 60)) for offset in config.reminder_offsets
    ]
    listed = times[0] if len(times) == 1 else f"{', '.join(times[:-1])} and {times[-1]}"
    return f"{listed} before each session"
