"""Syncing the slash commands once per deployment (under a claim), and only when they changed (a hash)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from datetime import UTC, datetime, timedelta

import discord
from discord import app_commands
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import claims
from db.base import upsert
from db.models import AppState

log = logging.getLogger("paperclub.bot")

SYNC_LEASE = timedelta(minutes=2)  # longer than a sync takes, even behind a rate limit
POLL_SECONDS = 0.25  # how often a process waiting for another's sync looks again


async def synced_digest(session: AsyncSession, key: str) -> str | None:
    """The hash of the command set last synced, read fresh (not from the session's identity map)."""
    return (await session.execute(select(AppState.value).where(AppState.key == key))).scalar_one_or_none()


async def sync_commands(
    tree: app_commands.CommandTree,
    session_factory: async_sessionmaker[AsyncSession],
    application_id: int,
    guild: discord.Object | None,
    *,
    force: bool = False,
) -> list[app_commands.AppCommand] | None:
    """Sync ``tree`` to ``guild`` (None: globally) unless the stored hash is current; the synced, or None."""
    payload = [command.to_dict(tree) for command in tree.get_commands(guild=guild)]
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
    target = guild.id if guild else "global"
    key, claim = f"commands:{application_id}:{target}", f"commands.sync:{application_id}:{target}"
    owner = uuid.uuid4().hex
    waited = False
    while True:
        now = datetime.now(UTC)
        async with session_factory() as session, session.begin():
            if not force and await synced_digest(session, key) == digest:
                log.info(
                    "application commands unchanged%s; not syncing",
                    " (another process synced them)" if waited else "",
                )
                return None
            if await claims.claim(session, claim, owner, now, SYNC_LEASE):
                # Read again: under READ COMMITTED the first read may predate the last syncer's commit.
                if not force and await synced_digest(session, key) == digest:
                    await claims.release(session, claim, owner)
                    log.info("application commands unchanged (another process synced them); not syncing")
                    return None
                break
        if not waited:
            log.info("another process is syncing the application commands; waiting for it")
        waited = True
        await asyncio.sleep(POLL_SECONDS)
    try:
        synced = await tree.sync(guild=guild)
    except BaseException:
        async with session_factory() as session, session.begin():
            await claims.release(session, claim, owner)
        raise
    async with session_factory() as session, session.begin():  # the hash and the release together
        row = {"key": key, "value": digest, "updated_at": datetime.now(UTC)}
        await session.execute(upsert(session, AppState, row, keys=["key"], update=["value", "updated_at"]))
        await claims.release(session, claim, owner)
    log.info("synced %d application commands to %s", len(synced), guild.id if guild else "all guilds")
    return synced
