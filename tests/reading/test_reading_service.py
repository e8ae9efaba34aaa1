"""The reading service: history pages and named reading lists, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import update

from bot.errors import BadInput, Conflict, NotFound
from bot.services.reading import lists as svc
from bot.services.reading.autocomplete import list_name_choices, list_paper_choices
from bot.services.reading.history import history_page
from db.models import ClubSession
from tests.reading.conftest import GUILD

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


async def test_history_is_past_and_not_cancelled_newest_first(club) -> None:
    async with club() as session:
        first = await history_page(session, GUILD, NOW, page=0, per_page=5)
        last = await history_page(session, GUILD, NOW, page=7, per_page=5)
        before_november = await history_page(session, GUILD, datetime(2026, 11, 1, tzinfo=UTC))
    assert (first.total, first.pages, last.page) == (15, 3, 2)
    assert [e.starts_at.date().isoformat() for e in first.items] == [
        "2026-11-19",
        "2026-11-05",
        "2026-10-16",
        "2026-09-24",
        "2026-06-17",
    ]
    assert last.items[-1].title == "OS-Genesis: reverse task synthesis"
    assert before_november.total == 13  # the two November sessions are still to come
    assert [p.title for p in first.items[1].papers] == ["TMax", "Terminal-World", "T1"]

    async with club() as session, session.begin():
        await session.execute(
            update(ClubSession).where(ClubSession.title.like("Sandbox%")).values(status="cancelled")
        )
    async with club() as session:
        assert (await history_page(session, GUILD, NOW)).total == 14


async def test_lists_add_show_remove(club) -> None:
    async with club() as session, session.begin():
        made = await svc.add_to_list(
            session, GUILD, "  User   Sims ", svc.read_paper_input("2406.12045"), note="τ-bench", user_id=7
        )
        again = await svc.add_to_list(
            session, GUILD, "user sims", svc.read_paper_input("arXiv:2406.12045"), note=None, user_id=7
        )
        noted = await svc.add_to_list(
            session, GUILD, "USER SIMS", svc.read_paper_input("2406.12045"), note="new note", user_id=7
        )
        by_title = await svc.add_to_list(
            session, GUILD, "User Sims", svc.read_paper_input("persimmon"), note=None, user_id=7
        )
    assert (made.list_name, made.created_list, made.size) == ("User Sims", True, 1)
    assert again.already_there
    assert not again.note_changed
    assert not again.created_list
    assert noted.already_there
    assert noted.note_changed
    assert by_title.paper.title == "Persimmon"  # the stored paper, matched on its title
    async with club() as session:
        summaries = await svc.list_summaries(session, GUILD)
        page = await svc.named_list(session, GUILD, "user sims", per_page=10)
        choices = await list_paper_choices(session, GUILD, "User Sims", "pers")
    assert [(s.name, s.size) for s in summaries] == [("ITSMBench", 4), ("User Sims", 2), ("WorldSmith", 6)]
    assert page is not None
    assert [(i.paper.title, i.note) for i in page.items] == [
        ("arXiv:2406.12045", "new note"),
        ("Persimmon", None),
    ]
    assert choices == [("Persimmon", "title:persimmon")]

    async with club() as session, session.begin():
        removed = await svc.remove_from_list(
            session, GUILD, "user sims", svc.read_paper_input("title:persimmon")
        )
        assert not removed.list_removed
        assert removed.size == 1
        with pytest.raises(NotFound):
            await svc.remove_from_list(session, GUILD, "user sims", svc.read_paper_input("persimmon"))
        gone = await svc.remove_from_list(session, GUILD, "user sims", svc.read_paper_input("2406.12045"))
        assert gone.list_removed
    async with club() as session:
        with pytest.raises(NotFound) as caught:
            await svc.named_list(session, GUILD, "user sims")
        assert "ITSMBench, WorldSmith" in caught.value.user_message


async def test_list_input_is_validated_before_writing(club) -> None:
    async with club() as session, session.begin():
        with pytest.raises(BadInput):
            await svc.add_to_list(session, GUILD, "   ", svc.read_paper_input("x"), note=None, user_id=1)
        with pytest.raises(BadInput):
            await svc.add_to_list(session, GUILD, "L" * 101, svc.read_paper_input("x"), note=None, user_id=1)
        with pytest.raises(BadInput):
            await svc.add_to_list(
                session, GUILD, "New list", svc.read_paper_input("x"), note="n" * 301, user_id=1
            )
        with pytest.raises(NotFound):
            await svc.add_to_list(
                session, GUILD, "New list", svc.read_paper_input("title:never seen"), note=None, user_id=1
            )
        with pytest.raises(BadInput):
            svc.read_paper_input("javascript:alert(1)")
    async with club() as session:
        assert [s.name for s in await svc.list_summaries(session, GUILD)] == ["ITSMBench", "WorldSmith"]


async def test_list_caps(club, monkeypatch) -> None:
    monkeypatch.setattr(svc, "MAX_ITEMS_PER_LIST", 6)
    monkeypatch.setattr(svc, "MAX_LISTS_PER_GUILD", 2)
    async with club() as session, session.begin():
        with pytest.raises(Conflict):
            await svc.add_to_list(
                session, GUILD, "WorldSmith", svc.read_paper_input("OMNI"), note=None, user_id=1
            )
        with pytest.raises(Conflict):
            await svc.add_to_list(session, GUILD, "Third", svc.read_paper_input("OMNI"), note=None, user_id=1)


async def test_list_name_autocomplete(club) -> None:
    async with club() as session:
        assert await list_name_choices(session, GUILD, "") == ["ITSMBench", "WorldSmith"]
        assert await list_name_choices(session, GUILD, "smith") == ["WorldSmith"]
        assert await list_name_choices(session, GUILD, "%_\\") == []


async def test_new_lists_items_and_papers_are_stamped_with_the_given_now(session_factory) -> None:
    from sqlalchemy import select

    from db.models import Paper
    from db.models.reading import ReadingList, ReadingListItem

    async with session_factory() as session, session.begin():
        await svc.add_to_list(
            session, GUILD, "Fresh", svc.read_paper_input("2406.12045"), note=None, user_id=7, now=NOW
        )
    async with session_factory() as session:
        (reading_list,) = (await session.execute(select(ReadingList))).scalars()
        (item,) = (await session.execute(select(ReadingListItem))).scalars()
        (paper,) = (await session.execute(select(Paper))).scalars()
    assert (reading_list.created_at, reading_list.updated_at) == (NOW, NOW)
    assert item.added_at == NOW
    assert paper.created_at == NOW
