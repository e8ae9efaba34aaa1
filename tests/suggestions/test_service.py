"""The suggestions service on the store (SQLite, and PostgreSQL with TEST_DATABASE_URL)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.errors import BadInput, Conflict, NotAllowed, NotFound
from bot.papers import parse_paper_ref
from bot.services.papers.metadata import apply_metadata
from bot.services.papers.store import get_or_create_paper
from bot.services.suggestions.actions import (
    Typed,
    review_suggestion,
    submit_suggestion,
    toggle_volunteer,
    validate_draft,
    withdraw_suggestion,
)
from bot.services.suggestions.duplicates import TitleIndex
from bot.services.suggestions.polls import choose_poll_options, due_polls, finish_poll, record_poll
from bot.services.suggestions.queries import (
    get_card,
    list_suggestions,
    search_suggestions,
    suggestions_of_papers,
)
from bot.sources.arxiv import ArxivMetadata
from db.models import ClubSession, Paper, SessionPaper
from tests.suggestions.conftest import NOW, TAU_BENCH
from tests.suggestions.helpers import toggle_vote

GUILD = 1
OTHER_GUILD = 2
TOPICS = ("environment generation", "verifier soundness", "user simulators", "benchmark validity", "other")
ALICE, BOB, CAROL, ORGANIZER = 101, 102, 103, 900


def draft(paper: str, *, title: str | None = None, reason: str | None = None, topic: str | None = None):
    return validate_draft(Typed(paper, title, reason, topic), TOPICS)


async def submit(sf, index, paper, user=ALICE, *, guild=GUILD, now=NOW, metadata=None, per_day=5, **kwargs):
    async with sf() as s, s.begin():
        return await submit_suggestion(
            s,
            guild_id=guild,
            user_id=user,
            draft=draft(paper, **kwargs),
            metadata=metadata,
            now=now,
            per_day=per_day,
            index=index,
        )


async def add_session(sf, title: str, starts_at, paper_texts: list[str], *, status="scheduled", guild=GUILD):
    async with sf() as s, s.begin():
        row = ClubSession(guild_id=guild, title=title, starts_at=starts_at, timezone="UTC", status=status)
        s.add(row)
        await s.flush()
        for position, text in enumerate(paper_texts):
            paper = await get_or_create_paper(s, guild, parse_paper_ref(text))
            s.add(SessionPaper(session_id=row.id, paper_id=paper.id, position=position))
        return row.id


@pytest.fixture
def index() -> TitleIndex:
    return TitleIndex()


# ---------------------------------------------------------------- validation (pure)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reason": "   "}, "Why is empty"),
        ({"reason": "x" * 1001}, "1,001 characters"),
        ({"title": " \n "}, "Title is empty"),
        ({"topic": "astrology"}, "not a topic"),
        ({"topic": "  "}, "Topic is empty"),
    ],
)
def test_bad_fields_are_refused(kwargs, message) -> None:
    with pytest.raises(BadInput, match=message):
        draft("2406.12045", **kwargs)


@pytest.mark.parametrize("paper", ["", "   ", "javascript:alert(1)", "ftp://example.com/paper.pdf"])
def test_bad_papers_are_refused(paper) -> None:
    with pytest.raises(BadInput):
        draft(paper)


def test_topic_matches_case_insensitively_and_reason_is_kept_whole() -> None:
    d = draft("2406.12045", topic="Benchmark Validity", reason="x" * 1000)
    assert d.topic == "benchmark validity"
    assert d.reason == "x" * 1000


# ---------------------------------------------------------------- submitting and duplicates


async def test_submit_stores_suggestion_with_arxiv_metadata(session_factory, index) -> None:
    meta = ArxivMetadata("2406.12045", TAU_BENCH, ("Shunyu Yao", "Noah Shinn"), "We propose.", "2024-06-17")
    result = await submit(
        session_factory, index, "https://arxiv.org/abs/2406.12045v2", metadata=meta, reason="good"
    )
    card = result.card
    assert card is not None
    assert result.duplicate is None
    assert card.paper.key == "arxiv:2406.12045"
    assert card.paper.title == TAU_BENCH
    assert card.paper.authors == "Shunyu Yao, Noah Shinn"
    assert card.abstract == "We propose."
    assert card.published == "2024-06-17"
    assert card.status == "open"
    assert card.votes == 0
    assert card.reason == "good"


async def test_members_own_title_wins_over_arxiv(session_factory, index) -> None:
    meta = ArxivMetadata("2406.12045", TAU_BENCH, (), "", "2024-06-17")
    result = await submit(
        session_factory, index, "2406.12045", metadata=meta, title="tau-bench (the original)"
    )
    assert result.card is not None
    assert result.card.paper.title == "tau-bench (the original)"


async def test_duplicate_by_other_link_adds_a_vote(session_factory, index) -> None:
    first = await submit(session_factory, index, "https://arxiv.org/abs/2406.12045")
    assert first.card is not None
    again = await submit(session_factory, index, "https://arxiv.org/pdf/2406.12045v3.pdf", user=BOB)
    assert again.card is None
    assert again.duplicate is not None
    notice = again.duplicate
    assert notice.standing.suggestion_id == first.card.id
    assert notice.standing.submitter_id == ALICE
    assert notice.vote_added
    assert notice.votes == 1
    assert not notice.own
    # a third time by the same member: no second vote
    third = await submit(session_factory, index, "arXiv:2406.12045", user=BOB)
    assert third.duplicate is not None
    assert not third.duplicate.vote_added
    assert third.duplicate.votes == 1
    # the submitter themself
    own = await submit(session_factory, index, "2406.12045", user=ALICE)
    assert own.duplicate is not None
    assert own.duplicate.own
    assert not own.duplicate.vote_added


async def test_duplicate_by_url_variant(session_factory, index) -> None:
    await submit(
        session_factory, index, "https://Example.org/papers/env-gen/?utm_source=x#intro", title="Env Gen"
    )
    again = await submit(session_factory, index, "http://example.org/papers/env-gen", user=BOB)
    assert again.duplicate is not None


async def test_duplicate_by_fuzzy_title_but_not_other_version(session_factory, index) -> None:
    await submit(session_factory, index, TAU_BENCH)
    near = await submit(
        session_factory,
        index,
        "tau-bench: a benchmark for tool agent user interaction in real world domain",
        user=BOB,
    )
    assert near.duplicate is not None
    other = await submit(
        session_factory,
        index,
        "Tau2-Bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains",
        user=BOB,
    )
    assert other.card is not None  # digits differ: a different paper


async def test_duplicate_by_title_of_an_arxiv_paper(session_factory, index) -> None:
    meta = ArxivMetadata("2406.12045", TAU_BENCH, (), "", "2024-06-17")
    await submit(session_factory, index, "2406.12045", metadata=meta)
    by_title = await submit(session_factory, index, TAU_BENCH.upper(), user=BOB)
    assert by_title.duplicate is not None
    assert by_title.duplicate.vote_added


async def test_already_read_paper_is_a_duplicate_without_vote(session_factory, index) -> None:
    await add_session(session_factory, "Tool-use benchmarks", NOW - timedelta(days=60), ["2406.12045"])
    result = await submit(session_factory, index, "https://arxiv.org/abs/2406.12045")
    assert result.duplicate is not None
    assert result.duplicate.standing.read_at == NOW - timedelta(days=60)
    assert result.duplicate.standing.read_session_title == "Tool-use benchmarks"
    assert not result.duplicate.vote_added


async def test_read_paper_matched_by_fuzzy_title(session_factory, index) -> None:
    await add_session(
        session_factory, "Old one", NOW - timedelta(days=9), ["OS-Genesis: Reverse Task Synthesis"]
    )
    result = await submit(session_factory, index, "OS Genesis - reverse task synthesis")
    assert result.duplicate is not None
    assert result.duplicate.standing.read_at is not None


async def test_cancelled_sessions_do_not_count_and_upcoming_ones_do(session_factory, index) -> None:
    await add_session(
        session_factory, "Cancelled", NOW - timedelta(days=3), ["2406.12045"], status="cancelled"
    )
    assert (await submit(session_factory, index, "2406.12045")).card is not None
    await add_session(session_factory, "Soon", NOW + timedelta(days=3), ["2506.07982"])
    upcoming = await submit(session_factory, index, "2506.07982")
    assert upcoming.duplicate is not None
    assert upcoming.duplicate.standing.scheduled_at is not None


async def test_declined_or_withdrawn_paper_can_be_suggested_again(session_factory, index) -> None:
    first = await submit(session_factory, index, "2406.12045")
    assert first.card is not None
    async with session_factory() as s, s.begin():
        await review_suggestion(
            s,
            guild_id=GUILD,
            suggestion_id=first.card.id,
            decision="decline",
            note=None,
            reviewer_id=ORGANIZER,
            now=NOW,
        )
    again = await submit(session_factory, index, "2406.12045", user=BOB)
    assert again.card is not None
    assert again.card.id != first.card.id
    # the old one cannot come back while the new one stands
    with pytest.raises(Conflict, match="suggested again since"):
        async with session_factory() as s, s.begin():
            await review_suggestion(
                s,
                guild_id=GUILD,
                suggestion_id=first.card.id,
                decision="shortlist",
                note=None,
                reviewer_id=ORGANIZER,
                now=NOW,
            )


async def test_guilds_are_separate(session_factory, index) -> None:
    mine = await submit(session_factory, index, "2406.12045")
    theirs = await submit(session_factory, index, "2406.12045", guild=OTHER_GUILD)
    assert mine.card is not None
    assert theirs.card is not None
    async with session_factory() as s:
        with pytest.raises(NotFound, match=f"#{mine.card.id}"):
            await get_card(s, OTHER_GUILD, mine.card.id)


async def test_daily_cap(session_factory, index) -> None:
    for i in range(3):
        await submit(
            session_factory,
            index,
            f"Paper number {i} about environments",
            per_day=3,
            now=NOW + timedelta(hours=i),
        )
    with pytest.raises(Conflict, match="limit is 3 a day") as refused:
        await submit(session_factory, index, "One paper too many", per_day=3, now=NOW + timedelta(hours=5))
    assert "<t:" in refused.value.user_message
    # another member is not limited; and the first may suggest again 24 h after their first
    assert (await submit(session_factory, index, "Bob's paper", user=BOB, per_day=3)).card is not None
    later = await submit(
        session_factory, index, "One paper too many", per_day=3, now=NOW + timedelta(hours=24, minutes=1)
    )
    assert later.card is not None


async def test_duplicates_do_not_count_toward_the_cap(session_factory, index) -> None:
    await submit(session_factory, index, "2406.12045", user=BOB)
    for _ in range(3):
        assert (await submit(session_factory, index, "2406.12045", per_day=1)).duplicate is not None
    assert (await submit(session_factory, index, "A new paper", per_day=1)).card is not None


# ---------------------------------------------------------------- votes, volunteers


async def test_vote_toggles_and_closed_suggestions_refuse(session_factory, index) -> None:
    card = (await submit(session_factory, index, "2406.12045")).card
    assert card is not None
    async with session_factory() as s, s.begin():
        first = await toggle_vote(s, GUILD, card.id, BOB, NOW)
        second = await toggle_vote(s, GUILD, card.id, CAROL, NOW)
    assert (first.added, first.count, second.count) == (True, 1, 2)
    async with session_factory() as s, s.begin():
        again = await toggle_vote(s, GUILD, card.id, BOB, NOW)
    assert (again.added, again.count) == (False, 1)
    async with session_factory() as s, s.begin():
        assert await toggle_volunteer(s, GUILD, card.id, CAROL, NOW)
    async with session_factory() as s:
        shown = await get_card(s, GUILD, card.id)
    assert shown.voter_ids == (CAROL,)
    assert shown.volunteer_ids == (CAROL,)
    with pytest.raises(NotFound):
        async with session_factory() as s, s.begin():
            await toggle_vote(s, OTHER_GUILD, card.id, BOB, NOW)
    async with session_factory() as s, s.begin():
        await withdraw_suggestion(
            s, guild_id=GUILD, suggestion_id=card.id, user_id=ALICE, is_organizer=False, now=NOW
        )
    with pytest.raises(Conflict, match="withdrawn"):
        async with session_factory() as s, s.begin():
            await toggle_vote(s, GUILD, card.id, BOB, NOW)


# ---------------------------------------------------------------- review and withdraw


async def test_review_can_change_and_keeps_the_note(session_factory, index) -> None:
    card = (await submit(session_factory, index, "2406.12045")).card
    assert card is not None
    async with session_factory() as s, s.begin():
        result = await review_suggestion(
            s,
            guild_id=GUILD,
            suggestion_id=card.id,
            decision="shortlist",
            note=" promising ",
            reviewer_id=ORGANIZER,
            now=NOW,
        )
    assert result.status == "shortlisted"
    assert result.review_note == "promising"
    async with session_factory() as s, s.begin():
        result = await review_suggestion(
            s,
            guild_id=GUILD,
            suggestion_id=card.id,
            decision="accept",
            note=None,
            reviewer_id=ORGANIZER,
            now=NOW,
        )
    assert result.status == "accepted"
    assert result.review_note is None
    with pytest.raises(BadInput, match="Note"):
        async with session_factory() as s, s.begin():
            await review_suggestion(
                s,
                guild_id=GUILD,
                suggestion_id=card.id,
                decision="decline",
                note="n" * 501,
                reviewer_id=1,
                now=NOW,
            )


async def test_withdraw_rules(session_factory, index) -> None:
    card = (await submit(session_factory, index, "2406.12045")).card
    assert card is not None
    with pytest.raises(NotAllowed):
        async with session_factory() as s, s.begin():
            await withdraw_suggestion(
                s, guild_id=GUILD, suggestion_id=card.id, user_id=BOB, is_organizer=False, now=NOW
            )
    async with session_factory() as s, s.begin():
        done = await withdraw_suggestion(
            s, guild_id=GUILD, suggestion_id=card.id, user_id=ORGANIZER, is_organizer=True, now=NOW
        )
    assert done.status == "withdrawn"
    with pytest.raises(Conflict, match="already withdrawn"):
        async with session_factory() as s, s.begin():
            await withdraw_suggestion(
                s, guild_id=GUILD, suggestion_id=card.id, user_id=ALICE, is_organizer=False, now=NOW
            )
    with pytest.raises(Conflict, match="withdrawn"):
        async with session_factory() as s, s.begin():
            await review_suggestion(
                s, guild_id=GUILD, suggestion_id=card.id, decision="accept", note=None, reviewer_id=1, now=NOW
            )


# ---------------------------------------------------------------- lists, search, polls


async def _three(session_factory, index):
    a = (
        await submit(session_factory, index, "Alpha environments paper", topic="environment generation")
    ).card
    b = (
        await submit(session_factory, index, "Beta verifier paper", user=BOB, now=NOW + timedelta(minutes=1))
    ).card
    c = (
        await submit(
            session_factory, index, "Gamma simulator paper", user=CAROL, now=NOW + timedelta(minutes=2)
        )
    ).card
    assert a
    assert b
    assert c
    async with session_factory() as s, s.begin():
        for voter in (1, 2, 3):
            await toggle_vote(s, GUILD, b.id, voter, NOW)
        await toggle_vote(s, GUILD, a.id, 1, NOW)
    return a, b, c


async def test_list_sorts_filters_and_pages(session_factory, index) -> None:
    a, b, c = await _three(session_factory, index)
    async with session_factory() as s:
        by_votes, total = await list_suggestions(s, GUILD)
        newest, _ = await list_suggestions(s, GUILD, sort="newest")
        topical, topical_total = await list_suggestions(s, GUILD, topic="Environment Generation")
        page2, _ = await list_suggestions(s, GUILD, offset=2, limit=2)
        declined, _ = await list_suggestions(s, GUILD, status="declined")
    assert total == 3
    assert [x.id for x in by_votes] == [b.id, a.id, c.id]
    assert by_votes[0].votes == 3
    assert [x.id for x in newest] == [c.id, b.id, a.id]
    assert topical_total == 1
    assert topical[0].id == a.id
    assert [x.id for x in page2] == [c.id]
    assert declined == []


async def test_search_by_id_and_words(session_factory, index) -> None:
    a, b, _ = await _three(session_factory, index)
    async with session_factory() as s:
        assert [x.id for x in await search_suggestions(s, GUILD, f"#{a.id}")] == [a.id]
        assert [x.id for x in await search_suggestions(s, GUILD, "verifier")] == [b.id]
        assert len(await search_suggestions(s, GUILD, "")) == 3
        assert await search_suggestions(s, OTHER_GUILD, "") == []
        assert await search_suggestions(s, GUILD, "100%_") == []


async def test_poll_options_prefer_shortlisted(session_factory, index) -> None:
    a, b, c = await _three(session_factory, index)
    async with session_factory() as s:
        options = await choose_poll_options(s, GUILD, 2)
    assert [o.id for o in options] == [b.id, a.id]  # none shortlisted: top voted
    async with session_factory() as s, s.begin():
        for sid in (a.id, c.id):
            await review_suggestion(
                s, guild_id=GUILD, suggestion_id=sid, decision="shortlist", note=None, reviewer_id=1, now=NOW
            )
    async with session_factory() as s:
        options = await choose_poll_options(s, GUILD, 5)
    assert [o.id for o in options] == [a.id, c.id]
    async with session_factory() as s:
        with pytest.raises(Conflict, match="at least two"):
            await choose_poll_options(s, OTHER_GUILD, 5)


async def test_poll_result_recorded_once(session_factory, index) -> None:
    a, b, c = await _three(session_factory, index)
    async with session_factory() as s, s.begin():
        poll_id = await record_poll(
            s,
            guild_id=GUILD,
            channel_id=5,
            message_id=6,
            created_by=ORGANIZER,
            ends_at=NOW + timedelta(hours=24),
            suggestion_ids=[b.id, a.id, c.id],
            now=NOW,
        )
    async with session_factory() as s:
        assert await due_polls(s, NOW + timedelta(hours=23)) == []
        assert [p.id for p in await due_polls(s, NOW + timedelta(hours=24))] == [poll_id]
    async with session_factory() as s, s.begin():
        result = await finish_poll(s, poll_id, {1: 2, 2: 5}, NOW + timedelta(hours=24))
    assert result is not None
    assert result.total_votes == 7
    assert result.winner is not None
    assert result.winner.suggestion_id == a.id
    assert [o.votes for o in result.options] == [5, 2, 0]
    async with session_factory() as s, s.begin():
        assert await finish_poll(s, poll_id, {1: 9}, NOW) is None
    async with session_factory() as s:
        assert await due_polls(s, NOW + timedelta(days=9)) == []


async def test_poll_tie_has_no_single_winner(session_factory, index) -> None:
    a, b, _ = await _three(session_factory, index)
    async with session_factory() as s, s.begin():
        poll_id = await record_poll(
            s,
            guild_id=GUILD,
            channel_id=5,
            message_id=6,
            created_by=1,
            ends_at=NOW,
            suggestion_ids=[a.id, b.id],
            now=NOW,
        )
        result = await finish_poll(s, poll_id, {1: 3, 2: 3}, NOW)
    assert result is not None
    assert result.winner is None
    assert len(result.winners) == 2


# ---------------------------------------------------------------- arXiv's later answer


async def test_arxivs_later_answer_titles_the_paper_and_its_title_is_a_duplicate(
    session_factory, index
) -> None:
    card = (await submit(session_factory, index, "2406.12045")).card  # arXiv was down: no metadata
    assert card is not None
    assert card.paper.title == "arXiv:2406.12045"
    meta = ArxivMetadata("2406.12045", TAU_BENCH, ("Shunyu Yao",), "Abstract.", "2024-06-17")
    async with (
        session_factory() as s,
        s.begin(),
    ):  # as the enrichment stores it (tests/papers/test_enrich_store.py)
        paper = await s.get(Paper, card.paper.id)
        assert paper is not None
        assert apply_metadata(paper, meta, NOW)
    async with session_factory() as s:
        assert await suggestions_of_papers(s, [card.paper.id]) == [card.id]  # the posts to re-render
        shown = await get_card(s, GUILD, card.id)
    assert shown.paper.title == TAU_BENCH
    assert shown.paper.authors == "Shunyu Yao"
    index.forget(GUILD)
    # now the title is known, a suggestion by title is caught
    assert (await submit(session_factory, index, TAU_BENCH, user=BOB)).duplicate is not None


async def test_title_index_sees_new_papers_and_title_changes(session_factory, index) -> None:
    await submit(session_factory, index, "A study of reward hacking in coding environments")
    async with session_factory() as s:
        assert await index.similar(s, GUILD, "A study of reward hacking in coding environment", NOW)
    await submit(session_factory, index, "Verifier soundness for math word problems", user=BOB)
    async with session_factory() as s:
        assert await index.similar(s, GUILD, "verifier soundness for math word problem", NOW)
        assert await index.similar(s, GUILD, "something else entirely", NOW) == []
        assert await index.similar(s, OTHER_GUILD, "verifier soundness for math word problem", NOW) == []


async def _review(sf, suggestion_id: int, decision: str) -> None:
    async with sf() as s, s.begin():
        await review_suggestion(
            s,
            guild_id=GUILD,
            suggestion_id=suggestion_id,
            decision=decision,  # type: ignore[arg-type]
            note=None,
            reviewer_id=ORGANIZER,
            now=NOW,
        )


async def session_from(sf, suggestion_id: int, title: str) -> int:
    """What "Create a session from it" writes: the session and the link, in one transaction."""
    from bot.services.sessions.rules import new_session
    from bot.services.sessions.store import create_session
    from bot.services.suggestions.actions import link_session

    draft = new_session(
        title=title, when=NOW + timedelta(days=10), default_zone="UTC", now=NOW, papers=["2406.12045"]
    )
    async with sf() as s, s.begin():
        info = (await create_session(s, GUILD, draft, created_by=ORGANIZER, now=NOW)).info
        await link_session(s, GUILD, suggestion_id, info.id, now=NOW)
        return info.id


async def count_sessions(sf) -> int:
    from sqlalchemy import func, select

    async with sf() as s:
        return int((await s.execute(select(func.count()).select_from(ClubSession))).scalar_one())


async def test_a_suggestion_makes_one_session_only(session_factory, index) -> None:
    card = (await submit(session_factory, index, "2406.12045")).card
    assert card is not None
    with pytest.raises(Conflict, match="is open; accept it first"):
        await session_from(session_factory, card.id, "Too early")
    assert await count_sessions(session_factory) == 0  # the session insert rolled back too
    await _review(session_factory, card.id, "accept")
    first = await session_from(session_factory, card.id, "Tau-bench")
    with pytest.raises(Conflict, match="A session was already made from this suggestion"):
        await session_from(session_factory, card.id, "Tau-bench again")
    assert await count_sessions(session_factory) == 1
    async with session_factory() as s:
        linked = await get_card(s, GUILD, card.id)
    assert linked.session_id == first
    with pytest.raises(NotFound):
        await session_from(session_factory, 987654, "Nowhere")
