"""The programme import writes through each feature's service: a feature's rule holds for a file too (a
refusal is a problem of the file, with its line, and nothing is written), and a file keeps history."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.services.programme.checks import ProgrammeInvalid
from bot.services.programme.files import import_text
from db.models import ClubSession
from db.models.series import Series
from tests.reading.conftest import snapshot

SERIES = "".join(
    f"  - {{name: Club {n}, day: thursday, time: '09:30', first: 2027-01-07}}\n" for n in range(1, 7)
)


async def test_a_series_over_the_event_budget_is_refused_as_in_series_add(session_factory) -> None:
    document = f"guild_id: 5\nseries:\n{SERIES}"
    before = await snapshot(session_factory)
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, document, suffix=".yaml", guild_id=None)
    (problem,) = caught.value.problems
    assert problem.line == 8  # the sixth series: six hold 54 weeks ahead, the server keeps to 50
    assert "Club 6" in problem.where
    assert "weeks ahead" in problem.message
    assert await snapshot(session_factory) == before
    async with session_factory() as session:
        assert list(await session.scalars(select(Series))) == []


PAST = """guild_id: 5
sessions:
  - title: Rained off
    starts_at: 2025-10-16
    status: cancelled
    recording_url: https://example.org/rec
    description: {description}
"""


async def test_a_past_cancelled_session_is_kept_and_edited_as_the_record_says(session_factory) -> None:
    _, report = await import_text(
        session_factory, PAST.format(description="first"), suffix=".yaml", guild_id=None
    )
    assert report.sessions.new == 1
    _, report = await import_text(
        session_factory, PAST.format(description="second"), suffix=".yaml", guild_id=None
    )
    assert (report.sessions.new, report.sessions.changed) == (0, 1)
    async with session_factory() as session:
        (row,) = await session.scalars(select(ClubSession))
    assert (row.status, row.date_only, row.recording_url) == ("cancelled", True, "https://example.org/rec")
    assert row.description == "second"
    _, again = await import_text(
        session_factory, PAST.format(description="second"), suffix=".yaml", guild_id=None
    )
    assert not again.changed_anything
