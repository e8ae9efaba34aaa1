"""The OpenReview client against its stand-in: venue and decision only (never a review's text), from API v2
or, for the venues only v1 holds, API v1; a review's id leading to its forum, unknown and forbidden forums,
the guest limit, the RateLimitError body's resetTime, a lockout, answers of mixed shapes, trouble."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.sources import clean
from bot.sources.http import SourceUnavailable
from bot.sources.openreview import OpenReviewClient, held_by_v1
from bot.sources.pace import RateLimit
from standin.http_service import hostile_text
from standin.openreview import OpenReviewStandin
from tests.papers.helpers import VirtualTimer, assert_clean

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


async def test_paced_to_the_guest_limit(openreview: OpenReviewStandin, timer: VirtualTimer) -> None:
    """20 requests a minute, across both APIs (openreview/openreview#254): the 21st waits for the window."""
    seed(openreview)
    client = OpenReviewClient(openreview.url, v1_url=openreview.v1_url, timer=timer)
    try:
        for _ in range(18):
            assert await client.decision("tmaxForum1", max_wait=120) is not None  # v2: one request each
        assert await client.decision("noSuchForum", max_wait=120) is None  # four: v2, v1, then by id
        for _ in range(18):
            assert await client.decision("tmaxForum1", max_wait=120) is not None
    finally:
        await client.close()
    assert openreview.refused_too_fast == []
    times = [seen.at for seen in openreview.requests]
    assert len(times) == 40
    assert all(later - earlier >= 60.0 for earlier, later in zip(times, times[20:], strict=False))
    assert timer.elapsed == pytest.approx(60.0)


async def test_the_guest_limit_is_modelled_so_an_unpaced_client_is_refused(
    openreview: OpenReviewStandin, timer: VirtualTimer
) -> None:
    seed(openreview)
    client = OpenReviewClient(openreview.url, timer=timer, limit=RateLimit(30, 60.0), retries=0)
    try:
        for _ in range(20):
            await client.decision("tmaxForum1")
        with pytest.raises(SourceUnavailable, match="wait"):
            await client.decision("tmaxForum1")
    finally:
        await client.close()
    assert len(openreview.refused_too_fast) == 1


async def test_a_2023_forum_is_read_from_api_v1(openreview: OpenReviewStandin, timer: VirtualTimer) -> None:
    """ICLR 2023 lives on API v1 only (openreview/openreview#299): asked of v2 first (nothing there), then
    of v1, in v1's shapes (one ``invitation``, plain values)."""
    openreview.add_submission(
        "iclr23Frm1",
        "Old But Gold: Environments Before 2024",
        venue="ICLR 2023 notable top 25%",
        venue_id="ICLR.cc/2023/Conference",
        number=1234,
        decision="Accept: notable-top-25%",
        reviews=[f"{REVIEW_MARK} a fine paper"],
    )
    client = OpenReviewClient(openreview.url, v1_url=openreview.v1_url, timer=timer)
    try:
        decision = await client.decision("iclr23Frm1")
        hits = await client.search_forums("Old But Gold")
    finally:
        await client.close()
    assert decision is not None
    assert (decision.venue, decision.venue_id, decision.decision) == (
        "ICLR 2023 notable top 25%",
        "ICLR.cc/2023/Conference",
        "Accept: notable-top-25%",
    )
    assert decision.title == "Old But Gold: Environments Before 2024"
    assert REVIEW_MARK not in repr(decision)
    assert [(seen.path, seen.query.get("forum")) for seen in openreview.requests[:2]] == [
        ("/notes", "iclr23Frm1"),
        ("/v1/notes", "iclr23Frm1"),
    ]
    assert [hit.forum_id for hit in hits] == ["iclr23Frm1"]
    assert [seen.path for seen in openreview.requests[2:]] == ["/notes/search", "/v1/notes/search"]


@pytest.mark.parametrize(
    ("venue", "year", "v1"),
    [
        ("ICLR 2023", 2023, True),
        ("International Conference on Learning Representations", 2023, True),
        ("NeurIPS", 2023, False),
        ("NeurIPS", 2022, True),
        ("ICML", 2021, True),
        ("ICLR", 2024, False),
        (None, None, False),
    ],
)
def test_which_papers_api_v1_alone_holds(venue: str | None, year: int | None, v1: bool) -> None:
    assert held_by_v1(venue, year) is v1


async def test_a_paper_known_to_be_old_is_asked_of_v1_first(
    openreview: OpenReviewStandin, timer: VirtualTimer
) -> None:
    """Two requests, not four, at 20 a minute: a 2023 ICLR paper's search and forum go to v1 first."""
    openreview.add_submission(
        "iclr23Frm1",
        "Old But Gold",
        venue="ICLR 2023 poster",
        venue_id="ICLR.cc/2023/Conference",
        decision="Accept",
    )
    client = OpenReviewClient(openreview.url, v1_url=openreview.v1_url, timer=timer)
    try:
        (hit,) = await client.search_forums("Old But Gold", v1_first=True)
        decision = await client.decision(hit.forum_id, v1_first=True)
    finally:
        await client.close()
    assert decision is not None
    assert decision.decision == "Accept"
    assert [seen.path for seen in openreview.requests] == ["/v1/notes/search", "/v1/notes"]


async def test_without_v1_only_v2_is_asked(openreview: OpenReviewStandin, timer: VirtualTimer) -> None:
    openreview.add_submission(
        "nips22Frm1", "Old", venue="NeurIPS 2022", venue_id="NeurIPS.cc/2022/Conference"
    )
    client = OpenReviewClient(openreview.url, timer=timer)
    try:
        assert await client.decision("nips22Frm1") is None
    finally:
        await client.close()
    assert {seen.path for seen in openreview.requests} == {"/notes"}


async def test_answers_of_mixed_shapes_are_refused_and_logged(
    openreview: OpenReviewStandin, timer: VirtualTimer, caplog: pytest.LogCaptureFixture
) -> None:
    """v2 notes beside v1-shaped ones in one answer: nothing is read from it, a warning says why."""
    seed(openreview)
    openreview.mixed_shapes = True
    client = OpenReviewClient(openreview.url, timer=timer)
    try:
        with (
            caplog.at_level("WARNING", logger="paperclub.sources"),
            pytest.raises(SourceUnavailable, match="shape"),
        ):
            await client.decision("tmaxForum1")
        assert "not in its own shape" in caplog.text
        openreview.mixed_shapes = False
        assert await client.decision("tmaxForum1") is not None
    finally:
        await client.close()


async def test_a_forbidden_forum_is_logged_as_such(
    client: OpenReviewClient, openreview: OpenReviewStandin, caplog: pytest.LogCaptureFixture
) -> None:
    openreview.hidden.add("tmaxForum1")
    with caplog.at_level("WARNING", logger="paperclub.sources"):
        assert await client.decision("tmaxForum1") is None
    assert "HTTP 403 Forbidden" in caplog.text


async def test_a_lockout_fails_fast_until_it_ends(
    client: OpenReviewClient, openreview: OpenReviewStandin, timer: VirtualTimer
) -> None:
    """Locked out for 30 minutes (openreview/openreview#437): one refused request, then no more until the
    time the refusal named."""
    openreview.lock_out(1800)
    with pytest.raises(SourceUnavailable) as info:
        await client.decision("tmaxForum1", max_wait=120)
    assert info.value.retry_at is not None
    assert (info.value.retry_at - timer.wall()).total_seconds() == pytest.approx(1800, abs=2)
    for _ in range(3):
        with pytest.raises(SourceUnavailable):
            await client.decision("tmaxForum1", max_wait=120)
    assert len(openreview.requests) == 1
    timer.advance(1801)
    assert await client.decision("tmaxForum1") is not None


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
        with pytest.raises(SourceUnavailable, match="shape"):  # not v2's shape: nothing read
            await client.decision("tmaxForum1")
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
        openreview.mode = "wrong_types"  # ids kept, the rest of the wrong type: not v2's shape, nothing read
        with pytest.raises(SourceUnavailable, match="shape"):
            await client.search_forums("TMax")
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
