"""The privacy service on SQLite and PostgreSQL: a member's overview, deletion and export touch exactly the
member's rows of the servers asked for; a server's deletion leaves nothing of it and all of the others."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, inspect, select, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from bot.services.privacy import servers
from bot.services.privacy.actions import erase_member, export_member, overview
from bot.services.privacy.kinds import KINDS, MEMBER_KINDS
from bot.services.privacy.rows import SESSION, SUBSCRIPTION, SUGGESTION, Who
from db.models import ClubSession, SessionSubscription
from db.models.core import FORMER_MEMBER, CalendarToken
from db.models.reading import ReadingList, ReadingListItem
from db.models.reminders import PRESENTER, Reminder
from db.models.series import Series
from db.models.sessions import PaperAlias
from db.models.suggestions import Suggestion, SuggestionPoll, SuggestionVolunteer, SuggestionVote
from tests.privacy.seed import NOW, seed

G1, G2 = 9101, 9202
RITA, SAM = 501, 502

Factory = async_sessionmaker[AsyncSession]


async def _two_servers(factory: Factory, *, public: bool = False) -> None:
    async with factory() as session, session.begin():
        await seed(session, G1, RITA, SAM, public=public)
        await seed(session, G2, RITA, SAM)


async def _everything(engine: AsyncEngine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, read by the store's own schema (a snapshot to compare)."""

    def names(connection: Any) -> list[str]:
        return sorted(inspect(connection).get_table_names())

    async with engine.connect() as conn:
        tables = await conn.run_sync(names)
        return {
            t: sorted(map(tuple, (await conn.execute(text(f'SELECT * FROM "{t}"'))).all()), key=repr)
            for t in tables
        }


async def _member_rows(factory: Factory, user: int, guild: int) -> dict[str, int]:
    async with factory() as session:
        found = await overview(session, Who(user, frozenset({guild})))
    return {kind.key: sum(found.counts[kind.key].values()) for kind in MEMBER_KINDS}


async def test_overview_counts_each_kind_per_server(session_factory: Factory) -> None:
    await _two_servers(session_factory)
    async with session_factory() as session:
        mine = await overview(session, Who(RITA, frozenset({G1})))
        everywhere = await overview(session, Who(RITA))
    assert mine.servers == [G1]
    assert everywhere.servers == [G1, G2]
    assert {kind.key for kind, n in mine.in_server(G1)} == {kind.key for kind in MEMBER_KINDS}
    assert dict((kind.key, n) for kind, n in mine.in_server(G1)) == dict(
        (kind.key, n) for kind, n in everywhere.in_server(G2)
    )  # the same doings in each server, counted apart
    counted = dict((kind.key, n) for kind, n in mine.in_server(G1))
    assert (counted["suggestions"], counted["links"], counted["presenter"]) == (2, 1, 2)
    assert counted["organizer"] == 4 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1  # sessions, series, the rest once


async def test_erase_takes_exactly_the_members_rows_of_the_server(
    engine: AsyncEngine, session_factory: Factory
) -> None:
    await _two_servers(session_factory)
    before = await _everything(engine)
    sams = {g: await _member_rows(session_factory, SAM, g) for g in (G1, G2)}
    async with session_factory() as session, session.begin():
        done = await erase_member(session, Who(RITA, frozenset({G1})), NOW)
    assert {g: await _member_rows(session_factory, SAM, g) for g in (G1, G2)} == sams
    after = await _everything(engine)
    assert all((await _member_rows(session_factory, RITA, G2)).values())  # the other server: untouched
    left = await _member_rows(session_factory, RITA, G1)
    assert left == dict.fromkeys(left, 0)  # the club page is off: nothing of hers stays in G1
    async with session_factory() as session:
        g1_suggestions = (await session.scalars(select(Suggestion).where(Suggestion.guild_id == G1))).all()
        assert {s.submitter_id for s in g1_suggestions} == {FORMER_MEMBER, SAM}  # kept, without her
        assert all(s.source_message_id is None for s in g1_suggestions if s.submitter_id == FORMER_MEMBER)
        assert await session.scalar(select(func.count()).where(Suggestion.guild_id == G1)) == 4
        unnamed = select(ClubSession.presenter_name).where(
            ClubSession.guild_id == G1, ClubSession.presenter_id.is_(None)
        )
        assert (await session.scalars(unnamed)).all() == [None, None]  # her two sessions, without her name
        assert await session.scalar(select(func.count()).where(Reminder.cancelled_by == FORMER_MEMBER)) == 1
        assert (
            await session.scalar(select(func.count()).where(SuggestionPoll.created_by == FORMER_MEMBER)) == 1
        )
    # nothing of sam's changed, anywhere; nothing of G2 at all
    changed = {t for t in before if before[t] != after[t]}
    assert changed <= {
        "suggestions",
        "suggestion_votes",
        "suggestion_volunteers",
        "suggestion_polls",
        "sessions",
        "session_subscriptions",
        "recording_opt_outs",
        "recording_preferences",
        "session_questions",
        "reminders",
        "site_calendar_tokens",
        "series",
        "reading_lists",
        "reading_list_items",
        "paper_aliases",
        "reading_search",
        "reading_search_content",
        "reading_search_docsize",
        "reading_search_data",
        "reading_search_idx",
    }
    assert {f.what for f in done.follow} == {SUGGESTION, SUBSCRIPTION, SESSION}
    assert {f.guild_id for f in done.follow} == {G1}


async def test_a_presenter_the_club_page_shows_stays(session_factory: Factory) -> None:
    await _two_servers(session_factory, public=True)
    async with session_factory() as session, session.begin():
        done = await erase_member(session, Who(RITA), NOW)
    presenter, reminders = done.erased["presenter"], done.erased["reminders"]
    assert (presenter.count, presenter.kept) == (2, 2)  # G2's dropped, G1's (public) kept
    async with session_factory() as session:
        named = (
            await session.execute(
                select(ClubSession.guild_id, func.count())
                .where(ClubSession.presenter_id == RITA)
                .group_by(ClubSession.guild_id)
            )
        ).all()
        assert dict(named) == {G1: 2}
        kept = (await session.scalars(select(Reminder.kind).where(Reminder.user_id == RITA))).all()
    assert set(kept) == {PRESENTER}
    assert len(kept) == reminders.kept == 2
    assert {f.guild_id for f in done.follow if f.what == SESSION} == {G2}


async def test_export_is_every_kind_of_the_member_in_one_server(session_factory: Factory) -> None:
    await _two_servers(session_factory)
    async with session_factory() as session:
        exported = await export_member(session, G1, RITA, NOW)
    assert json.loads(json.dumps(exported)) == exported
    assert [k["kind"] for k in exported["kinds"]] == [kind.name for kind in MEMBER_KINDS]
    rows = {k["kind"]: k["rows"] for k in exported["kinds"]}
    assert {r["id"] for r in rows["Suggestions"]} == {
        r["id"] for r in rows["Suggestions"] if r["guild_id"] == G1
    }
    assert all(r["user_id"] == RITA for r in rows["Votes"])
    assert rows["Personal calendar feed"][0]["guild_id"] == G1
    assert len(rows["Presenter history"]) == 2
    assert {r["table"] for r in rows["Organizer records"]} == {
        "sessions",
        "series",
        "reminders",
        "reading_lists",
        "reading_list_items",
        "suggestions",
        "suggestion_polls",
        "paper_aliases",
    }


async def test_a_server_deleted_leaves_nothing_of_it_and_all_of_the_other(
    engine: AsyncEngine, session_factory: Factory
) -> None:
    await _two_servers(session_factory)
    before = await _everything(engine)
    async with session_factory() as session:
        held = await servers.holdings(session, G1)
        assert await servers.known_servers(session) == {G1, G2}
    assert (held["sessions"], held["session_papers"]) == (4, 4)
    assert held["suggestion_votes"] > 0
    async with session_factory() as session, session.begin():
        gone = await servers.delete_server(session, G1)
    assert gone == held
    async with session_factory() as session:
        assert await servers.holdings(session, G1) == {}
        assert await servers.known_servers(session) == {G2}
        # no orphans: every child row's parent is there
        for child, column, parent in (
            (SuggestionVote, SuggestionVote.suggestion_id, Suggestion),
            (SuggestionVolunteer, SuggestionVolunteer.suggestion_id, Suggestion),
            (SessionSubscription, SessionSubscription.session_id, ClubSession),
            (ReadingListItem, ReadingListItem.list_id, ReadingList),
        ):
            orphans = select(func.count()).select_from(child).where(column.not_in(select(parent.id)))
            assert await session.scalar(orphans) == 0, child
    after = await _everything(engine)
    for table, rows in after.items():
        if table.startswith("reading_search") and table != "reading_search_queries":
            continue  # the full-text index's own storage (its rows are checked by server below)
        assert set(rows) <= set(before[table]), table  # nothing new, nothing changed
    g2 = await _member_rows(session_factory, RITA, G2)
    assert all(g2.values())
    async with engine.connect() as conn:
        left = await conn.scalar(text("SELECT count(*) FROM reading_search WHERE guild_id = :g"), {"g": G1})
    assert left == 0


async def test_every_kind_is_said_once_with_a_lifetime(session_factory: Factory) -> None:
    names = [kind.name for kind in KINDS]
    assert len(names) == len(set(names))
    for kind in KINDS:
        said = kind.said(30)
        assert all((said.what, said.why, said.kept, said.delete)), kind.key
        assert "{" not in said.kept + said.delete + said.what
    assert {PaperAlias, CalendarToken, Series}  # the kinds' models are the features' own
