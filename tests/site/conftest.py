"""Fixtures for the website: the club's real programme (examples/club.yaml) in the store (its `website`
section turns the site on), and the site's handlers served by aiohttp's test server (no bot: they are
Discord-free)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.services.programme.files import import_text
from bot.services.site import config as site_config
from bot.services.site.web import reader_session_factory, site_routes
from db.engine import create_session_factory
from tests.conftest import FilledStores, StoreInfo
from tests.reading.conftest import without_website

ROOT = Path(__file__).resolve().parents[2]
GUILD = 424242424242424242
OTHER_GUILD = 535353535353535353
SLUG = "paper-club"
PUBLIC = "https://club.example.org"
# Tuesday 20 October 2026: after 16 October (read), before the two November sessions (next).
OCTOBER = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
CLUB_NOV5 = "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST"
CLUB_NOV19 = "Thursday 19 November, 9:30 AM PT / 5:30 PM GMT / 11:00 PM IST"
ABOUT = """\
- **Format.** An hour, usually Thursdays at 9:30 AM PT.
- **Where.** A video call; sign up on [Luma](https://lu.ma/paperclub) beforehand.
"""


@dataclass
class Club:
    session_factory: async_sessionmaker[AsyncSession]
    clock: FakeClock
    guild_id: int = GUILD
    slug: str = SLUG


async def import_club(session_factory: async_sessionmaker[AsyncSession], guild_id: int = GUILD) -> None:
    """examples/club.yaml into ``guild_id``; into another server without its website section (the file
    names one address, which one server holds)."""
    text = (ROOT / "examples" / "club.yaml").read_text(encoding="utf-8")
    text = text if guild_id == GUILD else without_website(text)
    await import_text(session_factory, text, suffix=".yaml", guild_id=guild_id)


async def enable_site(
    session_factory: async_sessionmaker[AsyncSession],
    guild_id: int = GUILD,
    slug: str = SLUG,
    *,
    about: str | None = ABOUT,
    title: str = "Paper club",
) -> None:
    async with session_factory() as session, session.begin():
        await site_config.set_website(session, guild_id, enabled=True, slug=slug, title=title, now=OCTOBER)
        if about is not None:
            await site_config.set_about(session, guild_id, about, now=OCTOBER)


@pytest.fixture
async def club(
    store_info: StoreInfo,
    engine: AsyncEngine,
    session_factory: async_sessionmaker[AsyncSession],
    filled_stores: FilledStores,
) -> Club:
    """The club's programme imported: the file turns the site on, with its intro and How it runs."""
    # imported once per worker, then copied into each test's store
    await filled_stores.fill(store_info, engine, "site-club", import_club)
    return Club(session_factory, FakeClock(OCTOBER))


def site_app(club: Club, public: str | None = PUBLIC) -> web.Application:
    app = web.Application()
    app.add_routes(site_routes(club.session_factory, club.clock, lambda: public))
    return app


@pytest.fixture
async def served(club: Club, engine: AsyncEngine) -> AsyncIterator[TestClient]:
    """The site as the bot serves it: the read-only sessions the bot's handlers read with."""
    app = web.Application()
    app.add_routes(site_routes(reader_session_factory(engine), club.clock, lambda: PUBLIC))
    async with TestClient(TestServer(app)) as http:
        yield http


@pytest.fixture
async def other_process(store_info: StoreInfo) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Writes through an engine (a connection pool) of its own, as another bot process would: nothing
    tells the site's handlers about them."""
    other = store_info.engine()
    try:
        yield create_session_factory(other)
    finally:
        await other.dispose()


@pytest.fixture
async def client(club: Club) -> AsyncIterator[TestClient]:
    async with TestClient(TestServer(site_app(club))) as test_client:
        yield test_client
