"""The shared polite-HTTP pieces and the cleaning rules, without a server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.sources import clean
from bot.sources.http import RATE_LIMITED_TRIES, SourceUnavailable, user_agent
from bot.sources.pace import MAX_RETRY_AFTER, Pacer, RateLimit, retry_after_seconds
from bot.sources.semantic_scholar import SemanticScholarClient
from standin.semantic_scholar import SemanticScholarStandin
from tests.papers.helpers import VirtualTimer, one

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"Retry-After": "2.5"}, 2.5),
        ({"Retry-After": (NOW + timedelta(seconds=90)).strftime("%a, %d %b %Y %H:%M:%S GMT")}, 90.0),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # in the past: go now
        ({"Retry-After": "-5"}, 0.0),
        ({"Retry-After": "10000000"}, MAX_RETRY_AFTER),
        ({"RateLimit": '"api";r=0;t=42'}, 42.0),
        ({"Retry-After": "soon"}, None),
        ({"RateLimit": '"api";r=3'}, None),
        ({}, None),
    ],
)
def test_retry_after_forms(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after_seconds(headers, NOW) == (
        pytest.approx(seconds, abs=1) if seconds is not None else None
    )


def test_pacer_counts_a_sliding_window_from_when_requests_ended() -> None:
    timer = VirtualTimer()
    pacer = Pacer(RateLimit(3, 10.0), timer)
    for _ in range(3):
        assert pacer.delay() == 0
        pacer.finished()
        timer.advance(1)
    assert pacer.delay() == pytest.approx(7.0)  # the first ended at 0; it leaves the window at 10
    timer.advance(7)
    assert pacer.delay() == 0
    pacer.block(30)
    assert pacer.delay() == pytest.approx(30)
    assert pacer.blocked_for == pytest.approx(30)


def test_rate_limit_describes_itself() -> None:
    assert str(RateLimit(1, 3.0)) == "1 per 3 s"
    with pytest.raises(ValueError, match="at least one request"):
        RateLimit(0, 1.0)


def test_user_agent_names_the_bot_and_the_contact() -> None:
    assert user_agent().startswith("paperclub-bot/")
    assert user_agent("club@example.org").endswith("; mailto:club@example.org)")


def test_cleaning_rules() -> None:
    assert clean.text("  a\n\tb\x00c\u202e  ", 10) == "a bc"
    assert clean.text("x" * 50, 10) == "x" * 9 + "…"
    assert clean.text(5, 10) is None
    assert clean.text(" \u200b ", 10) is None
    assert clean.ident("10.1/abc") == "10.1/abc"
    assert clean.ident(42) == "42"
    assert clean.ident("has space") is None
    assert clean.ident("x" * 300) is None
    assert clean.ident(True) is None
    assert clean.url("https://arxiv.org/abs/1") == "https://arxiv.org/abs/1"
    for bad in (
        "javascript:alert(1)",
        "ftp://x.org/",
        "https://a@b.org/",
        "https://x.org/\u202e",
        "x" * 600,
        3,
    ):
        assert clean.url(bad) is None
    assert clean.count(3) == 3
    assert clean.count(-1) is None
    assert clean.count(True) is None
    assert clean.count("3") is None
    assert clean.year(2021) == 2021
    assert clean.year("2021") == 2021
    assert clean.year(99999) is None
    assert clean.names(["A", 3, None, " ", "B"], kept=5) == ("A", "B")
    assert clean.names(["n"] * 100) == ("n",) * clean.AUTHORS_KEPT
    assert clean.mapping([1]) == {}
    assert clean.items({"a": 1}) == []
    assert len(clean.query("q " * 1000)) == clean.QUERY_MAX


async def test_short_429s_are_waited_out_a_few_times_then_the_source_is_busy(timer: VirtualTimer) -> None:
    """A 1 s Retry-After costs 1 s and no retry; a source that keeps refusing is left for now, saying when."""
    async with SemanticScholarStandin(clock=timer.monotonic) as standin:
        standin.add("s2", "A paper", arxiv_id="2401.00001")
        client = SemanticScholarClient(standin.base, timer=timer, retries=0)
        try:
            standin.rate_limit_next(RATE_LIMITED_TRIES - 1, retry_after=1)
            assert await one(client, "ARXIV:2401.00001", max_wait=60) is not None
            assert timer.slept == [1.0] * (RATE_LIMITED_TRIES - 1)
            standin.rate_limit_next(100, retry_after=1)
            with pytest.raises(SourceUnavailable, match="times in a row") as info:
                await one(client, "ARXIV:2401.00001", max_wait=60)
            assert info.value.retry_at is not None
        finally:
            await client.close()
    assert [seen.status for seen in standin.requests].count(429) == 2 * RATE_LIMITED_TRIES - 1
