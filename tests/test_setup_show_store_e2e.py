"""/setup show reads the store on every call (one statement: settings, website, series): a change another
process makes, here a second engine on the same store writing the tables directly, shows in the next call,
and the organizer check uses it too."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, update

from bot.services.series.store import get_settings
from bot.services.setup.config import get_config
from bot.services.setup.overview import read_overview
from bot.services.site.config import get_site
from db.engine import create_session_factory, one_statement_session_factory
from db.models import GuildSettings
from db.models.series import SeriesSettings
from db.models.site import SiteSettings


def fields_of(response: Any) -> dict[str, str]:
    return {f["name"]: f["value"] for f in response.embeds[0]["fields"]}


async def show(env: Any, member: Any) -> Any:
    return await (await env.invoke("setup show", member=member)).response()


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
        async with create_session_factory(other)() as session, session.begin():
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
        assert after["Reminder offsets"] == "2h"
        assert after["Organizer role"] == f"<@&{env.world.readers.id}>"
        assert after["Website"] == "off (address `/paper-club/` kept)"
        assert after["Series"] == "4 weeks ahead · nudges off"
        # The organizer role another process set lets its members look, from the very next call.
        allowed = await show(env, env.members[0])
        assert allowed.embeds
        assert fields_of(allowed)["Time zone"] == "Europe/London"

        async with create_session_factory(other)() as session, session.begin():
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
