"""/setup's and the website's flows over the store, without Discord: a change, the overview with the steps
still missing, a member's calendar feed."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from bot.clock import FakeClock
from bot.errors import NotConfigured
from bot.services.setup.actions import Setup, next_steps, reminders_text, zones_text
from bot.services.site.actions import Site

GUILD = 7


@pytest.fixture
def host(engine, session_factory):
    return SimpleNamespace(
        engine=engine, session_factory=session_factory, clock=FakeClock(datetime(2026, 12, 1, tzinfo=UTC))
    )


async def test_a_change_shows_in_the_overview_and_leaves_the_steps_still_missing(host) -> None:
    setup = Setup(host)
    fresh = await setup.overview(GUILD)
    assert [command for command, _ in next_steps(fresh.config)] == [
        "/setup announcements",
        "/setup suggestions",
        "/setup organizer_role",
        "/setup ping_role",
    ]
    assert reminders_text(fresh.config) == "24 hours and 1 hour before each session"
    assert zones_text(fresh.config) == "PT, London, IST"
    await setup.change(GUILD, announcements_channel_id=11, ping_role_id=12, reminder_offsets="2h")
    config = (await setup.overview(GUILD)).config
    assert [command for command, _ in next_steps(config)] == ["/setup suggestions", "/setup organizer_role"]
    assert reminders_text(config) == "2 hours before each session"


async def test_a_calendar_feed_needs_the_website_on_and_an_address(host) -> None:
    site = Site(host)
    with pytest.raises(NotConfigured):
        await site.feed("https://club.example.org", GUILD, 99, reset=False)
    await site.set_website(GUILD, True, "club", "The club")
    with pytest.raises(NotConfigured):
        await site.feed(None, GUILD, 99, reset=False)
    url, _ = await site.feed("https://club.example.org", GUILD, 99, reset=False)
    assert url is not None
    assert url.startswith("https://club.example.org/club/calendar/")
    again, _ = await site.feed("https://club.example.org", GUILD, 99, reset=False)
    assert again is None  # shown once
    assert (
        await site.session_url("https://club.example.org", GUILD, 3)
        == "https://club.example.org/club/sessions/3/"
    )
