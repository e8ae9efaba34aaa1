"""The session drafts: every value checked once, in building them; the store takes them as they are.
And how a `papers` text is read (lines, ';', commas between short names)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot import papers, timeutil
from bot.errors import BadInput
from bot.services.sessions import rules
from bot.services.sessions import store as svc
from bot.services.sessions.rules import UNSET, new_session, session_changes

NOW = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
NOV5 = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)  # 8:00 AM PT
GUILD = 111


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts zone resolutions, start checks and paper parses wherever the code calls them."""
    seen: Counter[str] = Counter()

    def counting(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            seen[name] += 1
            return func(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(timeutil, "resolve_timezone", counting("zone", timeutil.resolve_timezone))
    monkeypatch.setattr(timeutil, "ensure_future", counting("start", timeutil.ensure_future))
    parse = counting("paper", papers.parse_paper_ref)
    for module in (papers, rules):
        monkeypatch.setattr(module, "parse_paper_ref", parse, raising=False)
    return seen


async def test_each_value_is_checked_once_and_the_store_checks_nothing(session_factory, calls) -> None:
    draft = new_session(
        title="  Building data   recipes ",
        when="2026-11-05 08:00",
        zone="PT",
        default_zone="UTC",
        now=NOW,
        papers="TMax\narXiv:2401.12345v2; https://arxiv.org/pdf/2401.12345v3\nT1",
        signup_url="lu.ma/paperclub",
    )
    assert calls == {"zone": 1, "start": 1, "paper": 4}
    assert draft.title == "Building data recipes"
    assert draft.starts_at == NOV5
    assert draft.timezone == "America/Los_Angeles"
    assert [ref.key for ref in draft.papers] == ["title:tmax", "arxiv:2401.12345", "title:t1"]
    assert draft.signup_url == "https://lu.ma/paperclub"
    calls.clear()
    async with session_factory() as s, s.begin():
        created = await svc.create_session(s, GUILD, draft, created_by=1, now=NOW)
        changes = session_changes(now=NOW, session_zone=created.info.timezone, when="2026-11-05 09:00")
        assert calls == {"zone": 1, "start": 1}
        calls.clear()
        edit = await svc.edit_session(s, GUILD, created.info.id, changes, now=NOW)
    assert calls == {}
    assert [p.title for p in created.info.papers] == ["TMax", "arXiv:2401.12345", "T1"]
    assert edit.changed == {"starts_at"}
    assert edit.info.starts_at == NOV5 + timedelta(hours=1)


def test_the_zone_is_the_given_one_else_the_default_and_a_datetime_is_checked_too() -> None:
    assert new_session(title="t", when="2026-11-05 16:00", default_zone="UTC", now=NOW).starts_at == NOV5
    assert new_session(title="t", when="2026-11-05 16:00 UK", default_zone="PT", now=NOW).timezone == (
        "Europe/London"
    )
    computed = new_session(title="t", when=NOV5, zone="IST", default_zone="UTC", now=NOW)
    assert (computed.starts_at, computed.timezone) == (NOV5, "Asia/Kolkata")
    with pytest.raises(BadInput, match="past"):
        new_session(title="t", when=NOW - timedelta(hours=1), default_zone="UTC", now=NOW)
    with pytest.raises(BadInput, match="Mars/Olympus"):
        new_session(title="t", when=NOV5, zone="Mars/Olympus", default_zone="UTC", now=NOW)


def test_an_edit_holds_only_the_given_fields() -> None:
    changes = session_changes(now=NOW, title="New", signup_url="-", presenter_name="Ada")
    assert changes.columns() == {
        "title": "New",
        "signup_url": None,
        "presenter_id": None,
        "presenter_name": "Ada",
    }
    assert changes.papers is UNSET
    assert session_changes(now=NOW) == rules.SessionChanges()
    assert session_changes(now=NOW, papers="-").papers == ()
    with pytest.raises(BadInput, match="together with `timezone`"):
        session_changes(now=NOW, zone="UK")
    with pytest.raises(BadInput, match="not both"):
        session_changes(now=NOW, presenter_id=7, presenter_name="-")
    with pytest.raises(BadInput, match="minutes"):
        session_changes(now=NOW, duration=5)


@pytest.mark.parametrize(
    ("text", "items", "by_commas"),
    [
        ("TMax, Terminal-World, T1", ["TMax", "Terminal-World", "T1"], True),
        ("TMax, Terminal-World and T1", ["TMax", "Terminal-World", "T1"], True),
        ("AgentScaler, AutoEnv, and OMNI", ["AgentScaler", "AutoEnv", "OMNI"], True),
        (
            "AI-GAs, Agent Psychometrics and Universal Verifier",
            ["AI-GAs", "Agent Psychometrics", "Universal Verifier"],
            True,
        ),
        (
            "2401.12345, https://arxiv.org/abs/2402.00001",
            ["2401.12345", "https://arxiv.org/abs/2402.00001"],
            True,
        ),
        # commas that may belong to a title stay inside it
        ("Read, Watch and Learn: agents from video", ["Read, Watch and Learn: agents from video"], False),
        ("Attention, please", ["Attention, please"], False),
        ('"Faster, Higher, Stronger"', ['"Faster, Higher, Stronger"'], False),
        # lines and ';' separate; then commas never do
        ("TMax, Terminal-World\nT1", ["TMax, Terminal-World", "T1"], False),
        ("TMax; T1", ["TMax", "T1"], False),
        ("Pen and Paper", ["Pen and Paper"], False),
    ],
)
def test_how_papers_are_read(text: str, items: list[str], by_commas: bool) -> None:
    reading = rules.read_papers(text)
    assert list(reading.items) == items
    assert reading.by_commas is by_commas
    assert reading.worth_telling is ("," in text)


def test_papers_are_parsed_into_refs_without_repeats_and_bad_ones_refused() -> None:
    reading = rules.read_papers("2401.12345, arXiv:2401.12345v2, TMax")
    assert [ref.key for ref in reading.refs] == ["arxiv:2401.12345", "title:tmax"]
    assert rules.read_papers("  ") == rules.PaperReading()
    with pytest.raises(BadInput, match="Only http"):
        rules.read_papers("TMax, javascript:alert(1)")
    with pytest.raises(BadInput, match="at most 10"):
        rules.read_papers(", ".join(f"P{n}" for n in range(11)))
