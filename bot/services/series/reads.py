"""What the series show: a series and its coming weeks (/series show, a change's reply), the server's series
(/series list), a page of /presenters, and where /series move's `when` would put a week."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.config.guild import GuildConfig, get_config
from bot.services.series import rules
from bot.services.series.info import SeriesCard, SeriesInfo, series_rule
from bot.services.series.presenters import Offer, PresenterStat, presenter_offers, presenter_stats
from bot.services.series.store import get_series, get_settings, list_series, load_series
from bot.services.series.weeks import weeks_view
from bot.timeutil import DisplayZone

Store = async_sessionmaker[AsyncSession]


async def card(factory: Store, guild_id: int, ref: str | int, now: datetime) -> SeriesCard:
    """The series and its coming weeks."""
    async with factory() as session:
        zones = (await get_config(session, guild_id)).display_zones
        horizon = (await get_settings(session, guild_id)).horizon_weeks
        info = await get_series(session, guild_id, ref)
        return SeriesCard(info, await weeks_view(session, info, now, horizon), zones, horizon, now)


async def all_series(factory: Store, guild_id: int) -> tuple[list[SeriesInfo], list[DisplayZone]]:
    """The server's series, by name, and its zones."""
    async with factory() as session:
        return await list_series(session, guild_id), (await get_config(session, guild_id)).display_zones


@dataclass(frozen=True)
class Presenters:
    """Who presents (imported history included), who offered to, and the server's zone."""

    stats: list[PresenterStat]
    offers: list[Offer]
    zone: str


async def presenters(factory: Store, guild_id: int, now: datetime) -> Presenters:
    """Who has presented, how often and when last, who presents next, who offered to present a paper."""
    async with factory() as session:
        zone = (await get_config(session, guild_id)).timezone
        return Presenters(
            await presenter_stats(session, guild_id, now), await presenter_offers(session, guild_id), zone
        )


async def moved_start(
    factory: Store, guild_id: int, ref: str, week: str, when: str, now: datetime
) -> tuple[datetime, GuildConfig]:
    """Where /series move would put the week (a time alone is that time on the week's date), and the
    server's settings to show it in."""
    async with factory() as session:
        config = await get_config(session, guild_id)
        rule = series_rule(await load_series(session, guild_id, ref))
    return rules.read_move(when, rules.parse_date(week, rule.tz, now), rule, now), config
