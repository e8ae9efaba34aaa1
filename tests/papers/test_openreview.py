"""The OpenReview client against its stand-in: venue and decision only (never a review's text), a review's
id leading to its forum, unknown forums, the RateLimitError body's resetTime, pacing, trouble."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.sources import clean
from bot.sources.http import SourceUnavailable
from bot.sources.openreview import OpenReviewClient
from standin.http_service import hostile_text
from standin.openreview import OpenReviewStandin
from tests.papers.helpers import VirtualTimer, assert_clean, gaps

REVIEW_MARK = "REVIEW-TEXT-MUST-NOT-LEAK"


def seed(standin: OpenReviewStandin) -> None:
    standin.add_submission(
        "tmaxForum1",
        "TMax: Scaling Terminal Agents",
        venue="ICLR 2026 Oral",
        venue_id="ICLR.cc/2026/Conference",
        number=17,
        decision="Accept (Oral)",
        reviews=[f"{REVIEW_MARK} @everyone this paper is great", f"{REVIEW_MARK} weak reject"],
    )
    standin.add_submission(
        "pendingFrm2",
        "Under Review",
        venue="Submitted to ICLR 2026",
        venue_id="ICLR.cc/2026/Conference/Submission",
    )


@pytest.fixture
async def client(openreview: OpenReviewStandin, timer: VirtualTimer) -> AsyncIterator[OpenReviewClient]:
    seed(openreview)
    reviews = OpenReviewClient(openreview.url, timer=timer, timeout=2.0)
    yield reviews
    await reviews.close()


async def test_venue_and_decision_with_the_forum_link(
    client: OpenReviewClient, openreview: OpenReviewStandin
) -> None:
    decision = await client.decision("tmaxForum1")
    assert decision is not None
    assert (decision.venue, decision.venue_id, decision.decision) == (
        "ICLR 2026 Oral",
        "ICLR.cc/2026/Conference",
        "Accept (Oral)",
    )
    assert decision.title == "TMax: Scaling Terminal Agents"
    assert decision.forum_url == "https://openreview.net/forum?id=tmaxForum1"
    assert REVIEW_MARK not in repr(decision)
    (seen,) = openreview.requests
    assert seen.query == {"forum": "tmaxForum1", "limit": "1000"}


async def test_before_a_decision(client: OpenReviewClient) -> None:
    decision = await client.decision("pendingFrm2")
    assert decision is not None
    assert (decision.venue, decision.decision) == ("Submitted to ICLR 2026", None)


async def test_a_reviews_id_leads_to_its_forum(
    client: OpenReviewClient, openreview: OpenReviewStandin
) -> None:
    decision = await client.decision("tmaxForum1R0")
    assert decision is not None
    assert decision.forum_id == "tmaxForum1"
    assert [seen.query.get("forum") or seen.query.get("id") for seen in openreview.requests] == [
        "tmaxForum1R0",
        "tmaxForum1R0",
        "tmaxForum1",
    ]
    assert REVIEW_MARK not in repr(decision)


async def test_unknown_and_malformed_ids(client: OpenReviewClient, openreview: OpenReviewStandin) -> None:
    assert await client.decision("noSuchForum") is None  # empty forum, then 404 NotFoundError for the id
    assert len(openreview.requests) == 2
    assert await client.decision("../notes?x=1") is None
    assert await client.decision("") is None
    assert len(openreview.requests) == 2  # neither was sent


async def test_paced_to_one_per_second(timer: VirtualTimer) -> None:
    async with OpenReviewStandin(clock=timer.monotonic, wall=timer.wall, limit=1, per=1.0) as standin:
        seed(standin)
        client = OpenReviewClient(standin.url, timer=timer)
        try:
            for _ in range(4):
                assert await client.decision("tmaxForum1") is not None
        finally:
            await client.close()
        assert standin.refused_too_fast == []
        assert min(gaps([seen.at for seen in standin.requests])) >= 1.0


async def test_rate_limit_error_reset_time_is_honoured(
    client: OpenReviewClient, openreview: OpenReviewStandin, timer: VirtualTimer
) -> None:
    openreview.rate_limit_next(
        1, retry_after=None
    )  # RateLimitError body, resetTime a minute on, no Retry-After
    with pytest.raises(SourceUnavailable) as info:
        await client.decision("tmaxForum1")  # 60 s is more than a command waits
    assert info.value.retry_at is not None
    assert (info.value.retry_at - timer.wall()).total_seconds() == pytest.approx(60, abs=2)
    openreview.rate_limit_next(1, retry_after=None)
    timer.advance(61)
    assert await client.decision("tmaxForum1", max_wait=120) is not None
    assert any(wait == pytest.approx(60, abs=2) for wait in timer.slept)


async def test_trouble(openreview: OpenReviewStandin, timer: VirtualTimer) -> None:
    seed(openreview)
    client = OpenReviewClient(openreview.url, timer=timer, timeout=0.2)
    try:
        openreview.fail_next(1, status=502)
        assert await client.decision("tmaxForum1") is not None
        for mode, reason in (("down", "HTTP 503"), ("slow", "no answer within"), ("garbage", "not JSON")):
            openreview.mode = mode
            with pytest.raises(SourceUnavailable, match=reason):
                await client.decision("tmaxForum1")
        openreview.mode = "wrong_types"  # the notes and their ids kept, everything else of the wrong type
        decision = await client.decision("tmaxForum1")
        assert decision is not None
        assert (decision.title, decision.venue, decision.venue_id, decision.decision) == (
            None,
            None,
            None,
            None,
        )
    finally:
        await client.close()


async def test_hostile_venue_and_decision(client: OpenReviewClient, openreview: OpenReviewStandin) -> None:
    openreview.add_submission(
        "evilForum3",
        hostile_text(10_000),
        venue=hostile_text(10_000, "ICLR"),
        venue_id="not an id with spaces",
        decision=hostile_text(5_000, "Accept"),
        reviews=[hostile_text(10_000, REVIEW_MARK)],
    )
    decision = await client.decision("evilForum3")
    assert decision is not None
    assert_clean(decision.title, clean.TITLE_MAX)
    assert_clean(decision.venue, clean.VENUE_MAX)
    assert_clean(decision.decision, clean.DECISION_MAX)
    assert decision.venue_id is None
    assert REVIEW_MARK not in repr(decision)


async def test_search_finds_submissions_only_and_cleans_their_titles(
    client: OpenReviewClient, openreview: OpenReviewStandin
) -> None:
    """A title search reads submissions (never a review that quotes the title), at most SEARCH_LIMIT."""
    openreview.add_submission("evilForum3", hostile_text(10_000, "TMax"), venue="x", venue_id="x")
    hits = await client.search_forums("TMax:   Scaling\nTerminal Agents")
    assert [hit.forum_id for hit in hits] == ["tmaxForum1"]
    assert hits[0].title == "TMax: Scaling Terminal Agents"
    (seen,) = openreview.requests
    assert seen.path == "/notes/search"
    assert seen.query == {
        "term": "TMax: Scaling Terminal Agents",
        "content": "all",
        "group": "all",
        "source": "forum",
        "limit": "5",
    }
    found = await client.search_forums("TMax")
    assert [hit.forum_id for hit in found] == ["tmaxForum1", "evilForum3"]
    assert_clean(found[1].title, clean.TITLE_MAX)
    assert await client.search_forums("no such words anywhere") == []
    assert await client.search_forums("   ") == []


async def test_search_trouble(openreview: OpenReviewStandin, timer: VirtualTimer) -> None:
    seed(openreview)
    client = OpenReviewClient(openreview.url, timer=timer, timeout=0.2)
    try:
        for mode, reason in (("down", "HTTP 503"), ("garbage", "not JSON")):
            openreview.mode = mode
            with pytest.raises(SourceUnavailable, match=reason):
                await client.search_forums("TMax")
        openreview.mode = "wrong_types"  # ids kept, titles of the wrong type: found, but untitled
        assert [(h.forum_id, h.title) for h in await client.search_forums("TMax")] == [("tmaxForum1", None)]
    finally:
        await client.close()


async def test_a_refused_search_finds_nothing_and_says_so(
    client: OpenReviewClient, openreview: OpenReviewStandin, caplog: pytest.LogCaptureFixture
) -> None:
    """A 400 means our query is wrong, not that the source is down: nothing found (the paper completes),
    and a warning for the operator."""
    openreview.fail_next(1, status=400)
    with caplog.at_level("WARNING", logger="paperclub.sources"):
        assert await client.search_forums("TMax") == []
    assert "refused a title search (HTTP 400)" in caplog.text
