"""The privacy flows over the store, without Discord, on SQLite and PostgreSQL: the confirmation's checks
refuse before anything is deleted (or Discord told), and an accepted press defers, then deletes."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.clock import FakeClock
from bot.errors import PaperclubError
from bot.services.privacy.actions import ELSEWHERE, EXPIRED, NOT_YOURS, Privacy
from tests.privacy.seed import NOW, seed

GUILD, OTHER = 9101, 9202
RITA, SAM = 501, 502


@pytest.fixture
async def privacy(engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]) -> Privacy:
    async with session_factory() as session, session.begin():
        await seed(session, GUILD, RITA, SAM)
        await seed(session, OTHER, RITA, SAM)
    return Privacy(SimpleNamespace(engine=engine, session_factory=session_factory, clock=FakeClock(NOW)))


async def test_a_refused_confirmation_deletes_nothing_and_tells_discord_nothing(privacy: Privacy) -> None:
    before = await privacy.overview(RITA, 0)
    issued = int(NOW.timestamp())
    late = int((NOW - timedelta(minutes=10, seconds=1)).timestamp())
    early = int((NOW + timedelta(seconds=1)).timestamp())
    readied: list[str] = []

    async def ready() -> None:
        readied.append("deferred")

    for (presser, where, at), message in {
        (SAM, GUILD, issued): NOT_YOURS,  # shown to rita, pressed by sam
        (RITA, OTHER, issued): ELSEWHERE,  # shown in GUILD, pressed in another server
        (RITA, 0, issued): ELSEWHERE,  # pressed in a DM
        (RITA, GUILD, late): EXPIRED,
        (RITA, GUILD, early): EXPIRED,  # issued in the future: made up
    }.items():
        with pytest.raises(PaperclubError) as refused:
            await privacy.delete(RITA, GUILD, at, presser=presser, where=where, ready=ready)
        assert refused.value.user_message == message
    assert readied == []
    assert await privacy.overview(RITA, 0) == before


async def test_an_accepted_confirmation_defers_then_deletes_only_that_server(privacy: Privacy) -> None:
    held: list[bool] = []

    async def ready() -> None:  # Discord is told before the deletion: rita's data is still there
        held.append(not (await privacy.overview(RITA, GUILD)).empty)

    done = await privacy.delete(RITA, GUILD, int(NOW.timestamp()), presser=RITA, where=GUILD, ready=ready)
    assert held == [True]
    assert {f.guild_id for f in done.follow} == {GUILD}
    assert (await privacy.overview(RITA, GUILD)).empty
    assert not (await privacy.overview(RITA, OTHER)).empty
    assert (await privacy.overview(RITA, 0)).servers == [OTHER]
