"""Each /reading action as one call into the reading service (no Discord), on SQLite and PostgreSQL; and
`replace_list`, the entry point the programme import writes lists through."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from bot.errors import BadInput, Conflict, NotFound
from bot.services.reading import actions
from bot.services.reading import lists as svc
from bot.services.reading.actions import Reading
from bot.sources.arxiv import ArxivMetadata
from db.models import Paper
from db.models.reading import ReadingList, ReadingSearchQuery
from tests.reading.conftest import GUILD, snapshot

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


class FakeArxiv:
    """Answers every arXiv id with a title, counting the lookups."""

    blocked_for = 0.0

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def fetch(self, arxiv_id: str) -> ArxivMetadata:
        self.asked.append(arxiv_id)
        return ArxivMetadata(arxiv_id, f"Paper {arxiv_id}", ("A. Author",), "Abstract.", "2025-01-02")


@dataclass
class Host:
    session_factory: object
    arxiv: FakeArxiv


@pytest.fixture
def reading(club) -> Reading:
    return Reading(Host(club, FakeArxiv()))


async def test_history_lists_and_a_list_by_name_then_by_id(reading: Reading) -> None:
    history = await reading.history(GUILD, NOW, page=9, per_page=5)
    assert (history.total, history.page, history.pages) == (15, 2, 3)
    lists = await reading.lists(GUILD, page=0, per_page=1)
    assert ([s.name for s in lists.items], lists.total, lists.pages) == (["ITSMBench"], 2, 2)
    shown = await reading.show(GUILD, "  worldsmith ", per_page=4)
    assert (shown.summary.name, shown.summary.size, shown.pages, len(shown.items)) == ("WorldSmith", 6, 2, 4)
    second = await reading.list_page(GUILD, shown.summary.id, page=1, per_page=4)
    assert second is not None
    assert (second.first_number, [i.paper.title for i in second.items]) == (5, ["ScaleEnv", "Gym-Anything"])
    assert await reading.list_page(GUILD + 1, shown.summary.id, page=0, per_page=4) is None
    with pytest.raises(NotFound, match="ITSMBench, WorldSmith"):
        await reading.show(GUILD, "No such list", per_page=4)
    assert await reading.list_names(GUILD) == ["ITSMBench", "WorldSmith"]


async def test_a_search_of_several_pages_is_saved_for_its_buttons(reading: Reading, club) -> None:
    one, one_id = await reading.search(GUILD, "OS-Genesis", NOW, per_page=5)
    assert (one.pages, one_id) == (1, 0)
    many, many_id = await reading.search(GUILD, "environments", NOW, per_page=1)
    assert many.pages > 1
    assert many_id > 0
    again, again_id = await reading.search(GUILD, "environments", NOW, per_page=1)
    assert again_id == many_id
    turned = await reading.search_page(GUILD, many_id, page=1, per_page=1)
    assert turned is not None
    assert (turned.query, turned.page) == ("environments", 1)
    assert await reading.search_page(GUILD + 1, many_id, page=1, per_page=1) is None
    assert await reading.search_page(GUILD, many_id + 1, page=1, per_page=1) is None
    async with club() as session:
        assert await session.scalar(select(func.count()).select_from(ReadingSearchQuery)) == 1


async def test_exports_of_a_list_and_of_the_history(reading: Reading, monkeypatch) -> None:
    listed = await reading.export(GUILD, "json", "worldsmith", NOW)
    assert listed.filename.endswith(".json")
    assert json.loads(listed.data)["list"] == "WorldSmith"
    history = await reading.export(GUILD, "markdown", None, NOW)
    assert history.filename == "reading-history.md"
    with pytest.raises(NotFound):
        await reading.export(GUILD, "csv", "No such list", NOW)
    monkeypatch.setattr(actions, "ATTACHMENT_LIMIT", 100)
    with pytest.raises(BadInput, match="over 10 MB"):
        await reading.export(GUILD, "markdown", None, NOW)


async def test_add_stores_then_fills_in_a_new_arxiv_papers_title(reading: Reading) -> None:
    added = await reading.add(
        GUILD, "New list", svc.read_paper_input("2501.00001"), "Why", user_id=7, now=NOW
    )
    assert (added.list_name, added.created_list, added.size) == ("New list", True, 1)
    assert added.paper.title == "Paper 2501.00001"
    again = await reading.add(GUILD, "new LIST", svc.read_paper_input("2501.00001"), None, user_id=7, now=NOW)
    assert again.already_there
    assert reading.host.arxiv.asked == ["2501.00001"]  # type: ignore[attr-defined]
    removed = await reading.remove(GUILD, "New list", svc.read_paper_input("2501.00001"))
    assert removed.list_removed


async def test_a_refused_add_or_remove_writes_nothing(reading: Reading, club) -> None:
    before = await snapshot(club)
    with pytest.raises(BadInput):
        await reading.add(GUILD, "Fresh", svc.read_paper_input("2501.00002"), "n" * 301, user_id=7, now=NOW)
    with pytest.raises(NotFound):
        await reading.remove(GUILD, "WorldSmith", svc.read_paper_input("title:never seen"))
    assert await snapshot(club) == before
    assert reading.host.arxiv.asked == []  # type: ignore[attr-defined]


async def _paper_ids(club, *titles: str) -> list[int]:
    async with club() as session:
        rows = dict(
            (await session.execute(select(Paper.title, Paper.id).where(Paper.guild_id == GUILD))).all()
        )
    return [rows[title] for title in titles]


async def test_replace_list_writes_exactly_the_papers_given(club) -> None:
    tmax, t1, osworld = await _paper_ids(club, "TMax", "T1", "OSWorld-Verified")
    async with club() as session, session.begin():
        made = await svc.replace_list(
            session,
            GUILD,
            "Terminals",
            [(tmax, "first"), (t1, None), (tmax, "again")],
            description="d",
            now=NOW,
        )
    assert (made.created, made.changed) == (True, True)
    async with club() as session, session.begin():
        same = await svc.replace_list(
            session, GUILD, "Terminals", [(tmax, "first"), (t1, None)], keep_description=True
        )
    assert (same.list_id, same.created, same.changed) == (made.list_id, False, False)
    async with club() as session, session.begin():
        changed = await svc.replace_list(session, GUILD, "Terminals", [(osworld, None), (tmax, "now second")])
    assert changed.changed
    async with club() as session:
        page = await svc.list_page(session, GUILD, made.list_id)
        stored = await session.get(ReadingList, made.list_id)
    assert page is not None
    assert [(i.paper.title, i.note) for i in page.items] == [
        ("OSWorld-Verified", None),
        ("TMax", "now second"),
    ]
    assert stored is not None
    assert (stored.description, stored.created_at) == (None, NOW)


async def test_replace_list_refuses_before_writing(club, monkeypatch) -> None:
    (tmax,) = await _paper_ids(club, "TMax")
    async with club() as session:
        other_guilds = await session.scalar(select(func.max(Paper.id))) + 1
    before = await snapshot(club)
    refusals = [
        (BadInput, dict(name=" ", papers=[(tmax, None)])),
        (BadInput, dict(name="L", papers=[(tmax, "n" * 301)])),
        (BadInput, dict(name="L", papers=[], description="d" * 1001)),
        (NotFound, dict(name="L", papers=[(tmax, None), (other_guilds, None)])),
    ]
    for error, kwargs in refusals:
        async with club() as session, session.begin():
            with pytest.raises(error):
                await svc.replace_list(session, GUILD, **kwargs)
    monkeypatch.setattr(svc, "MAX_LISTS_PER_GUILD", 2)
    async with club() as session, session.begin():
        with pytest.raises(Conflict):
            await svc.replace_list(session, GUILD, "Third", [(tmax, None)])
    assert await snapshot(club) == before
