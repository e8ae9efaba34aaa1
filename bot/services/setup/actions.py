"""Each /setup action as one call: the settings read (one statement) or changed, and shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sqlalchemy import BigInteger, bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import timeutil
from bot.clock import Host
from bot.services.config.guild import GuildConfig, config_from_row, update_config
from bot.services.series.store import Settings as SeriesSettingsValues
from bot.services.sessions import queries
from bot.services.site.config import DEFAULT_TITLE, SiteConfig
from db.engine import one_statement_session_factory
from db.models import GuildSettings
from db.models.core import SiteSettings
from db.models.series import SeriesSettings


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

#: The guild's columns keep their names (``config_from_row`` reads them), the others are prefixed.
_OVERVIEW: Final = (
    select(
        *_GUILD,
        *(column.label(f"site_{column.name}") for column in _SITE),
        *(column.label(f"series_{column.name}") for column in _SERIES),
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
    site = SiteConfig(guild_id, False, None, DEFAULT_TITLE, None)
    if row.site_guild_id is not None:
        site = SiteConfig(
            guild_id, row.site_enabled, row.site_slug, row.site_title, row.site_about, row.site_updated_at
        )
    series = SeriesSettingsValues(guild_id)
    if row.series_guild_id is not None:
        series = SeriesSettingsValues(
            guild_id, row.series_horizon_weeks, row.series_nudge_days, row.series_organizer_thread_id
        )
    return SetupOverview(config, site, series)


class Setup:
    """The /setup flows over the host's store."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.readers: async_sessionmaker[AsyncSession] = one_statement_session_factory(host.engine)

    async def overview(self, guild_id: int) -> SetupOverview:
        """Everything /setup show prints, in one statement."""
        async with self.readers() as session:
            return await read_overview(session, guild_id)

    async def channels_in_use(self, guild_id: int) -> list[int]:
        """The voice and stage channels the guild's sessions still to start are held in."""
        return await queries.channels_in_use(self.host.session_factory, guild_id, self.host.clock.now())

    async def change(self, guild_id: int, **changes: object) -> GuildConfig:
        """Save checked changes to the guild's settings; the settings as they now stand."""
        async with self.host.session_factory() as session, session.begin():
            return await update_config(session, guild_id, **changes)


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
