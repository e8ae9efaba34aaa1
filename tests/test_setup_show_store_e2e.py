"""/setup show reads the store at every call: a change another process makes, here a second engine on the
same store writing the tables directly, shows in the next call, and the organizer check uses it too."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, insert, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from bot.services.config.guild import get_config
from bot.services.series.store import get_settings
from bot.services.setup.actions import read_overview
from bot.services.site.config import get_site
from db.engine import create_session_factory, one_statement_session_factory
from db.models import GuildSettings
from db.models.core import SiteSettings
from db.models.series import SeriesSettings
from tests.cards import card_fields, card_title


def fields_of(response: Any) -> dict[str, str]:
    return card_fields(response)


async def show(env: Any, member: Any) -> Any:
    return await (await env.invoke("setup show", member=member)).response()


@contextlib.asynccontextmanager
async def elsewhere(env: Any, other: AsyncEngine) -> AsyncIterator[AsyncSession]:
    """One transaction on another engine (another process, as far as the bot can tell), committed."""
    async with create_session_factory(other)() as session, session.begin():
        yield session


async def test_another_process_change_shows_in_the_next_setup_show(discord_env, store_info) -> None:
    env = discord_env
    await env.standin.add_role(env.members[0], env.world.readers)
    before = await show(env, env.organizer)
    assert fields_of(before)["Time zone"] == "America/Los_Angeles"
    assert fields_of(before)["Website"] == "off"
    assert fields_of(before)["Series"].startswith("8 weeks ahead")
    refused = await show(env, env.members[0])
    assert "organizers" in refused.content.lower()

    other = store_info.engine()  # another process: its own engine and pool on the same store
    try:
        now = datetime.now(UTC)
        async with elsewhere(env, other) as session:
            await session.execute(
                insert(GuildSettings).values(
                    guild_id=env.guild.id,
                    timezone="Europe/London",
                    display_zones="Europe/London=UK",
                    reminder_offsets="2h",
                    suggestion_topics="verifiers",
                    organizer_role_id=env.world.readers.id,
                )
            )
            await session.execute(
                insert(SiteSettings).values(
                    guild_id=env.guild.id, enabled=False, slug="paper-club", title="Club", created_at=now
                )
            )
            await session.execute(
                insert(SeriesSettings).values(
                    guild_id=env.guild.id, horizon_weeks=4, nudge_days=0, created_at=now, updated_at=now
                )
            )
        after = fields_of(await show(env, env.organizer))
        assert after["Time zone"] == "Europe/London"
        assert after["Reminders"] == "2 hours before each session"
        assert after["Organizer role"] == f"<@&{env.world.readers.id}>"
        assert after["Website"] == "off (address `/paper-club/` kept)"
        assert after["Series"] == "4 weeks ahead · nudges off"
        # The organizer role another process set lets its members look, from the very next call.
        allowed = await show(env, env.members[0])
        assert card_title(allowed) == "Paper club settings"
        assert fields_of(allowed)["Time zone"] == "Europe/London"

        async with elsewhere(env, other) as session:
            await session.execute(
                update(GuildSettings)
                .where(GuildSettings.guild_id == env.guild.id)
                .values(timezone="Asia/Kolkata")
            )
            await session.execute(
                update(SeriesSettings).where(SeriesSettings.guild_id == env.guild.id).values(horizon_weeks=6)
            )
        again = fields_of(await show(env, env.organizer))
        assert again["Time zone"] == "Asia/Kolkata"
        assert again["Series"] == "6 weeks ahead · nudges off"
    finally:
        await other.dispose()


async def test_overview_reads_what_each_feature_reads(engine, session_factory) -> None:
    """The one statement gives the same values as the three features' own reads, with and without rows."""
    read = one_statement_session_factory(engine)
    guild_id = 1234567890123456789  # a snowflake past 2**53: the bound id must stay a BIGINT
    for with_rows in (False, True):
        if with_rows:
            now = datetime.now(UTC)
            async with session_factory() as session, session.begin():
                session.add(GuildSettings(guild_id=guild_id, timezone="UTC", ping_role_id=42))
                session.add(SiteSettings(guild_id=guild_id, enabled=True, slug="club", title="T", about="x"))
                session.add(SeriesSettings(guild_id=guild_id, horizon_weeks=3, nudge_days=2, created_at=now))
        async with read() as session:
            overview = await read_overview(session, guild_id)
        async with session_factory() as session:
            assert overview.config == await get_config(session, guild_id)
            assert overview.site == await get_site(session, guild_id)
            assert overview.series == await get_settings(session, guild_id)
        assert overview.site.live is with_rows
    async with read() as session:
        assert (await read_overview(session, guild_id + 1)).config.guild_id == guild_id + 1


async def test_each_setting_another_process_changes_shows_in_the_next_call(discord_env, store_info) -> None:
    """Every line of the card, changed by another engine: the next /setup show prints it."""
    env, guild_id = discord_env, discord_env.guild.id
    world = env.world
    thread = world.general.id  # any channel id will do for the series' organizers' thread
    now = datetime.now(UTC)
    gs, site, series = GuildSettings, SiteSettings, SeriesSettings
    steps: list[tuple[Any, str, str]] = [
        (
            insert(gs).values(guild_id=guild_id, announcements_channel_id=world.announcements.id),
            "Announcements channel",
            f"<#{world.announcements.id}>",
        ),
        (
            update(gs).values(suggestions_channel_id=world.suggestions.id),
            "Suggestions channel",
            f"<#{world.suggestions.id}>",
        ),
        (
            update(gs).values(organizer_role_id=world.organizers.id),
            "Organizer role",
            f"<@&{world.organizers.id}>",
        ),
        (update(gs).values(ping_role_id=world.readers.id), "Ping role", f"<@&{world.readers.id}>"),
        (update(gs).values(timezone="Asia/Kolkata"), "Time zone", "Asia/Kolkata"),
        (update(gs).values(reminder_offsets="3h"), "Reminders", "3 hours before each session"),
        (update(gs).values(display_zones="UTC=UTC"), "Times shown in", "UTC"),
        (
            update(gs).values(suggestion_topics="benchmarks;simulators"),
            "Suggestion topics",
            "benchmarks, simulators",
        ),
        (
            insert(site).values(guild_id=guild_id, enabled=False, slug="pc", title="Club", created_at=now),
            "Website",
            "off (address `/pc/` kept)",
        ),
        (update(site).values(enabled=True), "Website", "on at `/pc/`"),
        (
            insert(series).values(
                guild_id=guild_id, horizon_weeks=5, nudge_days=0, created_at=now, updated_at=now
            ),
            "Series",
            "5 weeks ahead · nudges off",
        ),
        (update(series).values(nudge_days=3), "Series", "5 weeks ahead · nudges 3 days before an open week"),
        (update(series).values(organizer_thread_id=thread), "Series", f"in <#{thread}>"),
        (delete(site), "Website", "off"),
        (delete(gs), "Time zone", "America/Los_Angeles"),
    ]
    other = store_info.engine()
    try:
        fields_of(await show(env, env.organizer))
        for statement, field, expected in steps:
            if not isinstance(statement, type(insert(gs))):
                statement = statement.where(statement.table.c.guild_id == guild_id)
            async with elsewhere(env, other) as session:
                await session.execute(statement)
            shown = fields_of(await show(env, env.organizer))[field]
            if field in ("Website", "Series"):  # lines that also say more (the served address, the thread)
                assert expected in shown, (field, shown)
            else:
                assert shown == expected, (field, shown)
    finally:
        await other.dispose()


async def test_setup_writes_show_in_the_next_call(discord_env) -> None:
    """This process's own /setup writes show in the next /setup show."""
    env = discord_env
    assert fields_of(await show(env, env.admin))["Time zone"] == "America/Los_Angeles"
    await (await env.invoke("setup timezone", {"zone": "Europe/Berlin"}, member=env.admin)).response()
    assert fields_of(await show(env, env.admin))["Time zone"] == "Europe/Berlin"
    await (await env.invoke("setup series_horizon", {"weeks": 3}, member=env.admin)).final()
    assert fields_of(await show(env, env.admin))["Series"].startswith("3 weeks ahead")
    await (await env.invoke("setup website", {"enabled": False, "slug": "club"}, member=env.admin)).response()
    assert fields_of(await show(env, env.admin))["Website"] == "off (address `/club/` kept)"
