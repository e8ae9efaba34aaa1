"""Store round trips and migrations, on SQLite and (with TEST_DATABASE_URL) PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import IntegrityError, StatementError

from bot.errors import BadInput
from bot.services.config.guild import get_config, update_config
from db.migrate import upgrade_database
from db.models import ClubSession, GuildSettings, Paper, SessionPaper


@pytest.mark.empty_store
async def test_migrations_from_empty_create_every_table(engine) -> None:
    async with engine.connect() as conn:
        tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    assert {
        "guild_settings",
        "app_state",
        "papers",
        "sessions",
        "session_papers",
        "alembic_version",
    } <= tables
    await upgrade_database(engine)  # idempotent


@pytest.mark.sqlite_only
async def test_sqlite_pragmas(engine, store_info) -> None:
    assert store_info.backend == "sqlite"
    async with engine.connect() as conn:
        assert (await conn.execute(text("PRAGMA foreign_keys"))).scalar() == 1
        assert (await conn.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
        assert (await conn.execute(text("PRAGMA busy_timeout"))).scalar() >= 5000


async def test_aware_utc_round_trip(session_factory) -> None:
    ist = timezone(timedelta(hours=5, minutes=30))
    start = datetime(2026, 11, 5, 21, 30, tzinfo=ist)
    async with session_factory() as session, session.begin():
        session.add(ClubSession(guild_id=1, title="T", starts_at=start, timezone="America/Los_Angeles"))
    async with session_factory() as session:
        row = (await session.execute(select(ClubSession))).scalar_one()
    assert row.starts_at == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
    assert row.starts_at.tzinfo is not None
    assert row.created_at.tzinfo is not None


async def test_naive_datetime_is_refused(session_factory) -> None:
    with pytest.raises(StatementError):
        async with session_factory() as session, session.begin():
            session.add(ClubSession(guild_id=1, title="T", starts_at=datetime(2026, 1, 1), timezone="UTC"))


async def test_defaults_evaluated_per_row(session_factory) -> None:
    async with session_factory() as session, session.begin():
        session.add(Paper(guild_id=1, key="title:a", kind="title", title="A", normalized_title="a"))
    async with session_factory() as session, session.begin():
        session.add(Paper(guild_id=1, key="title:b", kind="title", title="B", normalized_title="b"))
    async with session_factory() as session:
        a, b = (await session.execute(select(Paper.created_at).order_by(Paper.id))).scalars().all()
    assert b >= a


async def test_foreign_keys_enforced(session_factory) -> None:
    with pytest.raises(IntegrityError):
        async with session_factory() as session, session.begin():
            session.add(SessionPaper(session_id=999, paper_id=999))


async def test_guild_settings_defaults_and_update(session_factory) -> None:
    async with session_factory() as session:
        config = await get_config(session, 42)
    assert config.timezone == "America/Los_Angeles"
    assert [z.zone for z in config.display_zones] == ["America/Los_Angeles", "Europe/London", "Asia/Kolkata"]
    assert [o.total_seconds() for o in config.reminder_offsets] == [86400, 3600]
    async with session_factory() as session, session.begin():
        await update_config(session, 42, timezone="ET", announcements_channel_id=7, reminder_offsets="1h, 2d")
    async with session_factory() as session:
        config = await get_config(session, 42)
        assert await session.get(GuildSettings, 42) is not None
    assert config.timezone == "America/New_York"
    assert config.announcements_channel_id == 7
    assert config.reminder_offsets_text == "2d,1h"


async def test_bad_setting_writes_nothing(session_factory) -> None:
    with pytest.raises(BadInput):
        async with session_factory() as session, session.begin():
            await update_config(session, 43, announcements_channel_id=5, timezone="Mars/Olympus")
    async with session_factory() as session:
        assert await session.get(GuildSettings, 43) is None
