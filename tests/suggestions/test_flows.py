"""The suggestions' flows (bot/services/suggestions/flows.py) on the store, with the Discord side and arXiv
as fakes: no stand-in, no discord.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from bot.errors import BadInput
from bot.services.papers.enrich import ENRICH_JOB
from bot.services.suggestions import flows
from bot.services.suggestions.context import Place, PostFailed, Suggestions, TryLater
from bot.services.suggestions.polls import POLL_SETTLE, POLLS_JOB, PollResult, RunningPoll, record_poll
from bot.services.suggestions.queries import SuggestionCard
from bot.sources.arxiv import ArxivMetadata
from bot.sources.http import SourceUnavailable
from tests.suggestions.conftest import NOW, TAU_BENCH

GUILD = 1
ALICE, BOB, ORGANIZER = 101, 102, 900
CHANNEL = 555
LINK = "https://arxiv.org/abs/2406.12045"


@dataclass
class FakeDiscord:
    """What the flows did on Discord."""

    refuse: str | None = None
    posted: list[int] = field(default_factory=list)
    edited: list[tuple[int, str]] = field(default_factory=list)
    told: list[tuple[str, int]] = field(default_factory=list)
    counts: dict[int, int] | None | type[TryLater] = None
    results: list[PollResult] = field(default_factory=list)

    async def check_channel(self, channel_id: int | None) -> int:
        return CHANNEL

    async def post(self, channel_id: int, card: SuggestionCard) -> Place:
        if self.refuse:
            raise PostFailed(self.refuse)
        self.posted.append(card.id)
        return Place(channel_id, 9000 + card.id)

    async def edit(self, card: SuggestionCard) -> None:
        self.edited.append((card.id, card.status))

    async def reviewed(self, card: SuggestionCard, reviewer_id: int) -> bool:
        self.told.append(("reviewed", card.id))
        return True

    async def withdrawn(self, card: SuggestionCard) -> None:
        self.told.append(("withdrawn", card.id))

    async def poll_counts(self, poll: RunningPoll) -> dict[int, int] | None:
        if self.counts is TryLater:
            raise TryLater("Discord is busy")
        return self.counts  # type: ignore[return-value]

    async def poll_ended(self, result: PollResult) -> None:
        self.results.append(result)


class FakeArxiv:
    def __init__(self) -> None:
        self.down = False
        self.asked: list[str] = []

    async def fetch(self, arxiv_id: str, **_: Any) -> ArxivMetadata | None:
        self.asked.append(arxiv_id)
        if self.down:
            raise SourceUnavailable("arXiv", "down")
        if arxiv_id != "2406.12045":
            return None
        return ArxivMetadata(arxiv_id, TAU_BENCH, ("Shunyu Yao",), "We propose tau-bench.", "2024-06-17")


class FakeBackground:
    def __init__(self) -> None:
        self.due: list[str] = []
        self.woken: list[tuple[str, datetime]] = []

    async def due_now(self, name: str) -> None:
        self.due.append(name)

    def wake(self, name: str, at: datetime) -> None:
        self.due.append(name)
        self.woken.append((name, at))


@pytest.fixture
def world(session_factory: Any, engine: Any) -> SimpleNamespace:
    host = SimpleNamespace(
        session_factory=session_factory,
        engine=engine,
        settings=SimpleNamespace(suggestions_per_day=5),
        arxiv=FakeArxiv(),
        background=FakeBackground(),
        sources=None,
    )
    discord = FakeDiscord()
    return SimpleNamespace(host=host, discord=discord, ctx=Suggestions(host, discord))  # type: ignore[arg-type]


async def suggest(
    world: SimpleNamespace, paper: str, user: int = ALICE, now: datetime = NOW
) -> flows.Suggested:
    checked: list[bool] = []

    async def mark() -> None:
        checked.append(True)

    result = await flows.suggest(
        world.ctx, flows.Typed(paper), guild_id=GUILD, user_id=user, now=now, checked=mark
    )
    assert checked == [True]
    return result


async def test_suggest_stores_posts_keeps_the_place_and_makes_the_sources_due(world) -> None:
    done = await suggest(world, LINK)
    assert done.card is not None
    assert done.card.paper.title == TAU_BENCH  # arXiv's title, asked before the write
    assert world.discord.posted == [done.card.id]
    assert (done.card.channel_id, done.card.message_id) == (CHANNEL, 9000 + done.card.id)
    assert world.host.background.due == [ENRICH_JOB]
    shown = await flows.card(world.ctx, GUILD, done.card.id)
    assert shown.message_id == 9000 + done.card.id  # kept in the store


async def test_the_same_paper_again_is_a_vote_and_its_post_re_rendered(world) -> None:
    first = await suggest(world, LINK)
    world.host.arxiv.asked.clear()
    again = await suggest(world, "arXiv:2406.12045v2", user=BOB)
    assert again.card is None
    assert again.duplicate is not None
    assert again.duplicate.vote_added
    assert world.host.arxiv.asked == []  # known: arXiv not asked again
    await world.ctx.posts.wait_idle()
    assert first.card is not None
    assert world.discord.edited == [(first.card.id, "open")]


async def test_a_refused_post_is_saved_and_says_why(world) -> None:
    world.discord.refuse = "Missing Access"
    done = await suggest(world, LINK)
    assert done.card is not None
    assert done.not_posted == "Missing Access"
    assert (await flows.card(world.ctx, GUILD, done.card.id)).message_id is None


async def test_arxiv_down_saves_what_was_given_and_an_unknown_id_writes_nothing(world) -> None:
    world.host.arxiv.down = True
    done = await suggest(world, LINK)
    assert done.arxiv_down
    assert done.card is not None
    assert done.card.paper.title == "arXiv:2406.12045"  # the enrichment job asks arXiv again
    world.host.arxiv.down = False
    with pytest.raises(BadInput, match="arXiv has no paper"):
        await suggest(world, "https://arxiv.org/abs/2501.00001", user=BOB)
    page, _ = await flows.list_page(world.ctx, GUILD, status="all", topic_index=None, sort="votes", page=0)
    assert page.total == 1


async def test_review_and_an_organizers_withdraw_tell_the_submitter(world) -> None:
    done = await suggest(world, LINK)
    assert done.card is not None
    reviewed, told = await flows.review(
        world.ctx,
        guild_id=GUILD,
        suggestion_id=done.card.id,
        decision="shortlist",
        note="next month",
        reviewer_id=ORGANIZER,
        now=NOW,
    )
    assert (reviewed.status, told) == ("shortlisted", True)
    card = await flows.withdraw(
        world.ctx, guild_id=GUILD, suggestion_id=done.card.id, user_id=ORGANIZER, is_organizer=True, now=NOW
    )
    assert card.status == "withdrawn"
    assert world.discord.edited == [(card.id, "shortlisted"), (card.id, "withdrawn")]
    assert world.discord.told == [("reviewed", card.id), ("withdrawn", card.id)]


async def test_an_ended_poll_waits_while_discord_is_busy_then_is_announced_once(world) -> None:
    done = await suggest(world, LINK)
    assert done.card is not None
    async with world.host.session_factory() as session, session.begin():
        await record_poll(
            session,
            guild_id=GUILD,
            channel_id=CHANNEL,
            message_id=77,
            created_by=ORGANIZER,
            ends_at=NOW,
            suggestion_ids=[done.card.id],
            now=NOW,
        )
    later = NOW + timedelta(hours=1)
    world.discord.counts = TryLater
    assert await flows.finish_polls(world.ctx, later) == []
    assert world.host.background.woken[-1] == (POLLS_JOB, later + timedelta(minutes=1))  # asked again soon
    world.discord.counts = {1: 3}
    woken = len(world.host.background.woken)
    (result,) = await flows.finish_polls(world.ctx, later)
    assert world.discord.results == [result]
    assert len(world.host.background.woken) == woken  # no poll running: the job sleeps
    assert await flows.finish_polls(world.ctx, later) == []


async def test_a_poll_wakes_the_job_at_its_end(world) -> None:
    for paper in (LINK, "https://example.org/another-paper"):
        await suggest(world, paper)

    class Posted:
        async def post(self, options: Any) -> Place:
            return Place(CHANNEL, 77)

        async def take_down(self) -> None:
            raise AssertionError("recorded: nothing to take down")

    ends = NOW + timedelta(hours=24)
    await flows.start_poll(
        world.ctx, Posted(), guild_id=GUILD, count=2, created_by=ORGANIZER, ends_at=ends, now=NOW
    )
    assert world.host.background.woken[-1] == (POLLS_JOB, ends + POLL_SETTLE)
