"""The website's calendar feed (``/<slug>/calendar.ics``, served by the bot and in the static build) gives a
series in its repeating form: one VEVENT with RRULE, EXDATE for a skipped week and RECURRENCE-ID for a moved
one, expanded by recurring-ical-events to the weeks /series show lists; a change to the series shows at the
next poll."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import icalendar
import pytest

from bot.demo.botenv import BotEnv
from bot.services.site.web import build_site
from tests.series.helpers import add_thursdays, configure, run
from tests.series.test_calendar_e2e import expand

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


@pytest.fixture
def bot_settings_overrides(bot_settings_overrides: dict[str, Any]) -> dict[str, Any]:
    return {**bot_settings_overrides, "web_port": 0}


async def fetch(url: str) -> bytes:
    async with aiohttp.ClientSession() as http, http.get(url) as answer:
        assert answer.status == 200, answer.status
        assert answer.content_type == "text/calendar"
        return await answer.read()


def series_days(data: bytes) -> list[str]:
    return [
        e.decoded("dtstart").date().isoformat()
        for e in expand(data, NOW, NOW + timedelta(weeks=8))
        if str(e["UID"]).startswith("series-")
    ]


async def test_the_site_feed_carries_the_series_as_one_repeating_event(env: BotEnv, tmp_path: Path) -> None:
    await configure(env)
    await add_thursdays(env)
    await run(env, "organize series skip", {"series": "1", "date": "2026-12-24", "reason": "Christmas Eve"})
    await run(env, "setup website", {"enabled": True, "slug": "paper-club"}, member=env.admin)
    assert env.bot.web is not None
    feed = f"{env.bot.web.public_url}/paper-club/calendar.ics"

    data = await fetch(feed)
    series = [e for e in icalendar.Calendar.from_ical(data).walk("VEVENT") if "RRULE" in e]
    assert len(series) == 1
    text = series[0].to_ical().decode()
    assert "RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=TH" in text
    assert "EXDATE;TZID=America/Los_Angeles:20261224T093000" in text
    days = series_days(data)
    assert "2026-12-24" not in days
    assert len(days) == 7  # the horizon's eight weeks, one skipped; no week twice as a one-off
    assert len(icalendar.Calendar.from_ical(data).walk("VEVENT")) == 1

    await run(env, "organize series move", {"series": "1", "date": "2026-12-17", "when": "8:00am"})
    moved = await fetch(feed)
    assert moved != data
    (override,) = [e for e in icalendar.Calendar.from_ical(moved).walk("VEVENT") if "RECURRENCE-ID" in e]
    assert override.decoded("dtstart") == datetime(2026, 12, 17, 16, 0, tzinfo=UTC)

    await build_site(env.bot.session_factory, env.guild.id, tmp_path, now=env.bot.clock.now())
    assert series_days((tmp_path / "calendar.ics").read_bytes()) == series_days(moved)
