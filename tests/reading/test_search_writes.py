"""How the search index is written (migration 0014): on PostgreSQL each document once per transaction, in
id order, and two transactions changing one document at once both reach it (with 0004's triggers, which
wrote each document as each row was written, the second failed with a unique violation, or, written as an
upsert, could leave the document without the first's change); upgrading an existing store and going back
keep the index whole. The search results themselves are tested in test_search.py."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import insert, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from bot.services.reading.search import search
from db.migrate import alembic_config, upgrade_database
from db.models import ClubSession, Paper, SessionPaper
from tests.reading.conftest import GUILD, import_club, snapshot

STARTS = datetime(2026, 7, 2, 16, 30, tzinfo=UTC)


def _paper(i: int) -> dict[str, object]:
    return {
        "guild_id": GUILD,
        "key": f"title:bulk paper {i}",
        "kind": "title",
        "title": f"Bulk paper {i} on wombat gyms",
        "normalized_title": f"bulk paper {i} on wombat gyms",
        "created_at": STARTS,
    }


async def _stat_counts(session: AsyncSession) -> tuple[int, int, int]:
    """The backend's (inserted, updated, deleted) counts for reading_search not yet reported: this
    transaction's, plus earlier ones' on this connection (PostgreSQL 15 reports them when idle)."""
    row = (
        await session.execute(
            text(
                "SELECT n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_xact_user_tables "
                "WHERE relid = 'reading_search'::regclass"
            )
        )
    ).one()
    return int(row[0]), int(row[1]), int(row[2])


class WriteCounter:
    """Rows of reading_search inserted, updated and deleted since :meth:`start`, in one transaction."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self.base = (0, 0, 0)

    async def start(self) -> WriteCounter:
        self.base = await _stat_counts(self.session)
        return self

    async def since(self) -> tuple[int, int, int]:
        now = await _stat_counts(self.session)
        return now[0] - self.base[0], now[1] - self.base[1], now[2] - self.base[2]


@pytest.fixture
def postgresql_only(store_info) -> None:
    if store_info.backend != "postgresql":
        pytest.skip("PostgreSQL's deferred index writes (SQLite's FTS5 triggers write as rows are written)")


@pytest.mark.usefixtures("postgresql_only")
async def test_a_bulk_load_writes_each_document_once_in_id_order(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    async with session_factory() as session, session.begin():
        writes = await WriteCounter(session).start()
        await session.execute(insert(Paper), [_paper(i) for i in range(300)])
        paper_ids = list((await session.scalars(text("SELECT id FROM papers ORDER BY id"))).all())
        sessions = [
            ClubSession(
                guild_id=GUILD,
                title=f"Wombat session {i}",
                starts_at=STARTS,
                timezone="UTC",
                papers=[SessionPaper(paper_id=paper_ids[3 * i + k], position=k) for k in range(3)],
            )
            for i in range(20)
        ]
        session.add_all(sessions)
        await session.flush()
        await session.execute(  # a paper's new title reaches its session, still once per document
            update(Paper).where(Paper.id == paper_ids[0]).values(title="Bulk paper 0, renamed: wombat")
        )
        assert await writes.since() == (0, 0, 0)  # nothing written yet: only marked
        await session.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))  # what COMMIT does
        assert await writes.since() == (300 + 20, 0, 0)
        order = (await session.execute(text("SELECT id FROM reading_search ORDER BY ctid"))).scalars().all()
        assert list(order) == sorted(order)
    async with session_factory() as session:
        found = await search(session, GUILD, "renamed wombat")
        assert {(h.kind, h.title) for h in found.hits} == {
            ("paper", "Bulk paper 0, renamed: wombat"),
            ("session", "Wombat session 0"),
        }
        marks = await session.execute(
            text(
                "SELECT (SELECT count(*) FROM reading_search_dirty), (SELECT count(*) FROM reading_search_flushes)"
            )
        )
        assert marks.one() == (0, 0)  # the marks go with the transaction that flushed them
        pending = await session.scalar(text("SELECT gin_clean_pending_list('ix_reading_search_tsv')"))
        assert pending == 0  # a large flush merged its GIN entries into the index itself


@pytest.mark.usefixtures("postgresql_only")
async def test_an_edit_that_changes_no_document_writes_none(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await import_club(session_factory)
    async with session_factory() as session, session.begin():
        writes = await WriteCounter(session).start()
        await session.execute(update(ClubSession).values(status=ClubSession.status))  # marks every session
        await session.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))
        assert await writes.since() == (0, 0, 0)
        first = await session.scalar(text("SELECT min(id) FROM sessions"))
        await session.execute(update(ClubSession).where(ClubSession.id == first).values(status="cancelled"))
        await session.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))
        assert await writes.since() == (0, 0, 1)  # a cancelled session leaves the index


@pytest.mark.usefixtures("postgresql_only")
async def test_writes_after_a_flush_or_a_rolled_back_savepoint_are_flushed_too(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    async with session_factory() as session, session.begin():
        await session.execute(insert(Paper), [_paper(1)])
        await session.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))  # flushed here...
        await session.execute(text("SET CONSTRAINTS ALL DEFERRED"))
        savepoint = await session.begin_nested()
        await session.execute(insert(Paper), [_paper(3)])  # registers a flush inside the savepoint...
        await savepoint.rollback()  # ...which goes with its row and its mark
        await session.execute(insert(Paper), [_paper(2)])  # so this registers again, flushed at COMMIT
        await session.execute(insert(Paper), [_paper(4)])
    async with session_factory() as session:
        found = await search(session, GUILD, "wombat gyms", per_page=10)
        assert sorted(h.title for h in found.hits) == [f"Bulk paper {i} on wombat gyms" for i in (1, 2, 4)]


async def _backend_waiting_on_a_lock(conn: AsyncConnection, pid: int) -> None:
    """Return once backend ``pid`` waits on a lock (polled: PostgreSQL has no event for it)."""
    for _ in range(500):
        waiting = (
            await conn.execute(
                text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid"), {"pid": pid}
            )
        ).scalar_one_or_none()
        if waiting == "Lock":
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the second transaction never waited for the first")


@pytest.mark.parametrize(
    "first_change",
    [
        "adds a paper",  # T2 then names the presenter
        "brings a cancelled session back",  # T2 then adds a paper: it reads the session as cancelled
    ],
)
@pytest.mark.usefixtures("postgresql_only")
async def test_two_transactions_changing_one_document_both_reach_it(
    engine: AsyncEngine, first_change: str
) -> None:
    """T1 flushes (holding its guild's lock) but has not committed; T2 commits a change to the same
    session meanwhile. T2's flush waits, then reads T1's rows: the document has both changes."""
    cancelled = first_change == "brings a cancelled session back"
    async with engine.begin() as conn:
        paper = (await conn.execute(insert(Paper).returning(Paper.id), [_paper(1)])).scalar_one()
        extra = (await conn.execute(insert(Paper).returning(Paper.id), [_paper(2)])).scalar_one()
        sid = (
            await conn.execute(
                insert(ClubSession).returning(ClubSession.id),
                [
                    {
                        "guild_id": GUILD,
                        "title": "Quokka session",
                        "starts_at": STARTS,
                        "timezone": "UTC",
                        "duration_minutes": 60,
                        "status": "cancelled" if cancelled else "scheduled",
                        "sequence": 0,
                        "created_at": STARTS,
                        "updated_at": STARTS,
                    }
                ],
            )
        ).scalar_one()
        await conn.execute(insert(SessionPaper), [{"session_id": sid, "paper_id": paper, "position": 0}])
    # (T2 changes a column outside the unique (guild, title, start) index: a title change would wait
    # for T1's foreign-key share lock on the session row instead.)
    async with engine.connect() as first, engine.connect() as second, engine.connect() as watcher:
        await first.begin()
        if cancelled:
            await first.execute(update(ClubSession).where(ClubSession.id == sid).values(status="scheduled"))
        else:
            await first.execute(insert(SessionPaper), [{"session_id": sid, "paper_id": extra, "position": 1}])
        await first.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))  # T1's flush: document written, lock held
        await second.begin()
        if cancelled:
            await second.execute(
                insert(SessionPaper), [{"session_id": sid, "paper_id": extra, "position": 1}]
            )
        else:
            await second.execute(
                update(ClubSession).where(ClubSession.id == sid).values(presenter_name="Xenia Quill")
            )
        second_pid = (await second.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        committing = asyncio.create_task(second.commit())
        await _backend_waiting_on_a_lock(watcher, second_pid)
        await first.commit()
        await committing
    async with engine.connect() as conn:
        people, papers = (
            await conn.execute(
                text("SELECT people, papers FROM reading_search WHERE id = :i"), {"i": sid * 4 + 1}
            )
        ).one()
    assert people == ("" if cancelled else "Xenia Quill")
    assert "Bulk paper 2" in papers
    assert "Bulk paper 1" in papers


@pytest.mark.empty_store
async def test_upgrade_from_0004_and_back_keeps_the_index(
    engine: AsyncEngine, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    """A store at 0004 with content upgrades to 0014 with the same index; a downgrade restores 0004's triggers."""

    def migrate(conn, *, down: bool) -> None:  # type: ignore[no-untyped-def]
        config = alembic_config()
        config.attributes["connection"] = conn
        if down:
            command.downgrade(config, "0004")
        else:
            command.upgrade(config, "heads")

    async with engine.begin() as conn:
        await conn.run_sync(migrate, down=True)
    await import_club(session_factory)  # written through 0004's triggers
    before = await snapshot(session_factory)
    await upgrade_database(engine)
    assert await snapshot(session_factory) == before
    async with session_factory() as session:
        assert (await search(session, GUILD, "AutoEnv")).total == 3
    async with session_factory() as session, session.begin():  # and 0014 keeps it in step
        await session.execute(update(Paper).where(Paper.title == "AutoEnv").values(title="AutoEnvy"))
    async with session_factory() as session:
        assert (await search(session, GUILD, "AutoEnvy")).total == 3
    async with engine.begin() as conn:
        await conn.run_sync(migrate, down=True)
    async with session_factory() as session, session.begin():
        await session.execute(update(Paper).where(Paper.title == "AutoEnvy").values(title="AutoEnv"))
    assert await snapshot(session_factory) == before
