"""Each /setup action as one call: the settings read for /setup show, or changed, over the host's store."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.host import Host
from bot.services.config.guild import GuildConfig, update_config
from bot.services.sessions import queries
from bot.services.setup.overview import SetupOverview, read_overview
from db.engine import one_statement_session_factory


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
        """The voice and stage channels of the sessions still to start (what the bot must hold there)."""
        return await queries.channels_in_use(self.host.session_factory, guild_id, self.host.clock.now())

    async def change(self, guild_id: int, **changes: object) -> GuildConfig:
        """Save checked changes to the guild's settings; the settings as they now stand."""
        async with self.host.session_factory() as session, session.begin():
            return await update_config(session, guild_id, **changes)
