"""Syncing the slash commands once per deployment, and only when they changed.

The hash of the last synced payload is kept in ``app_state``; a process finding it current does not sync.
Of processes starting together one takes the sync lease (a ``job_runs`` row, ``commands.sync:…``), syncs,
and writes the hash and the release in one commit; the others wait, then find the hash current. A lease,
not a lock held across the HTTP call, because SQLite has one write lock for the whole store; a process
that dies mid-sync leaves a lease that runs out after :data:`SYNC_LEASE`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from datetime import UTC, datetime, timedelta

import discord
from discord import app_commands
from sqlalchemy import or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from db.models import AppState
from db.models.jobs import JobRun

log = logging.getLogger("paperclub.bot")

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SYNC_LEASE = timedelta(minutes=2)  # longer than a sync takes, even behind a rate limit
POLL_SECONDS = 0.25  # how often a process waiting for another's sync looks again


def payload_hash(tree: app_commands.CommandTree, guild: discord.Object | None) -> str:
    """The hash of the command set ``tree`` would sync to ``guild`` (None: globally)."""
    payload = [command.to_dict(tree) for command in tree.get_commands(guild=guild)]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


async def synced_digest(session: AsyncSession, key: str) -> str | None:
    """The hash of the command set last synced, read fresh (not from the session's identity map)."""
    return (await session.execute(select(AppState.value).where(AppState.key == key))).scalar_one_or_none()


async def take_lease(session: AsyncSession, name: str, owner: str, now: datetime, lease: timedelta) -> bool:
    """Hold ``name`` for up to ``lease``: True if taken, False while another owner's lease is live."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    await session.execute(
        insert(JobRun).values(name=name, next_run_at=EPOCH, runs=0).on_conflict_do_nothing()
    )
    taken = await session.execute(
        update(JobRun)
        .where(
            JobRun.name == name,
            or_(JobRun.lease_owner.is_(None), JobRun.lease_owner == owner, JobRun.lease_until <= now),
        )
        .values(lease_owner=owner, lease_until=now + lease, last_started_at=now)
    )
    return bool(getattr(taken, "rowcount", 0))


async def release_lease(session: AsyncSession, name: str, owner: str, now: datetime) -> None:
    """Give ``name`` back (only if ``owner`` still holds it)."""
    await session.execute(
        update(JobRun)
        .where(JobRun.name == name, JobRun.lease_owner == owner)
        .values(lease_owner=None, lease_until=None, last_finished_at=now, runs=JobRun.runs + 1)
    )


async def sync_commands(
    tree: app_commands.CommandTree,
    session_factory: async_sessionmaker[AsyncSession],
    application_id: int,
    guild: discord.Object | None,
    *,
    force: bool = False,
) -> list[app_commands.AppCommand] | None:
    """Sync ``tree`` to ``guild`` (None: globally) unless the stored hash says it is current (or ``force``);
    the commands synced, or None when not synced. Once per deployment (see the module docstring)."""
    digest = payload_hash(tree, guild)
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
            if await take_lease(session, claim, owner, now, SYNC_LEASE):
                # Read again now the lease is ours: under READ COMMITTED the first read may predate the
                # commit of the process that just synced (its hash and its release are one commit).
                if not force and await synced_digest(session, key) == digest:
                    await release_lease(session, claim, owner, now)
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
            await release_lease(session, claim, owner, datetime.now(UTC))
        raise
    async with session_factory() as session, session.begin():  # the hash and the release together
        row = await session.get(AppState, key)
        if row is None:
            session.add(AppState(key=key, value=digest))
        else:
            row.value = digest
        await release_lease(session, claim, owner, datetime.now(UTC))
    log.info("synced %d application commands to %s", len(synced), guild.id if guild else "all guilds")
    return synced
