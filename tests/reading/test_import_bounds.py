"""`paperclub import` with hostile numbers and dates: every problem is listed and nothing is written (was
ValueError for '²', OverflowError for a 23-digit guild id or a session in the year 9999)."""

from __future__ import annotations

import pytest

from bot.services.programme.document import ProgrammeInvalid
from bot.services.programme.files import import_text
from tests.reading.conftest import snapshot

CASES = [
    ('guild_id: "²"\nsessions: []\n', "guild_id", "expected a whole number of at least 1"),
    ("guild_id: 99999999999999999999999\nsessions: []\n", "guild_id", "is too large"),
    (
        "guild_id: 5\nsessions:\n  - title: Far\n    starts_at: 9999-12-31 23:00\n",
        "starts_at",
        "Dates must be between",
    ),
    (
        "guild_id: 5\nsessions:\n  - title: Far\n    starts_at: 0001-01-01T00:00:00+14:00\n",
        "starts_at",
        "Dates must be between",
    ),
    (
        "guild_id: 5\nsessions:\n  - title: x\n    starts_at: 2026-11-05 08:00\n    duration_minutes: '٣٠'\n",
        "duration_minutes",
        "expected a whole number",
    ),
    (
        "guild_id: 5\nsessions:\n  - title: x\n    starts_at: 2026-11-05 08:00\n    presenter_id: "
        + "9" * 5000
        + "\n",
        "presenter_id",
        "is too large",
    ),
    (
        'guild_id: 5\nsessions:\n  - title: "\\u200b"\n    starts_at: 2026-11-05 08:00\n',
        "title",
        "Give the session a title",
    ),
]


@pytest.mark.parametrize(("document", "where", "message"), CASES)
async def test_hostile_values_are_problems_and_nothing_is_written(
    session_factory, document: str, where: str, message: str
) -> None:
    before = await snapshot(session_factory)
    with pytest.raises(ProgrammeInvalid) as caught:
        await import_text(session_factory, document, suffix=".yaml", guild_id=None)
    assert any(where in p.where and message in p.message for p in caught.value.problems), (
        caught.value.problems
    )
    assert await snapshot(session_factory) == before
