"""The sessions service on the store (SQLite and, with TEST_DATABASE_URL, PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from bot.errors import BadInput, Conflict, NotFound
from bot.services.sessions import members, rules
from bot.services.sessions import queries as q
from bot.services.sessions import store as svc
from bot.services.sessions.rules import SessionChanges, SessionDraft, new_session, session_changes
from db.models import ClubSession, Paper, SessionSubscription
from tests.sessions.helpers import subscriber_ids

NOW = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
GUILD = 111
OTHER_GUILD = 222
NOV5 = datetime(2026, 11, 5, 16, 0, tzinfo=UTC)  # 8:00 AM PT


def draft_of(title="Building data recipes for terminal agents", start=NOV5, **kw) -> SessionDraft:
    return new_session(
        title=title,
        when=start,
        zone=kw.pop("timezone", "America/Los_Angeles"),
        default_zone="UTC",
        now=kw.pop("now", NOW),
        **kw,
    )


async def add(factory, title="Building data recipes for terminal agents", start=NOV5, guild=GUILD, **kw):
    draft = draft_of(title, start, **kw)
    async with factory() as s, s.begin():
        return (await svc.create_session(s, guild, draft, created_by=1, now=NOW)).info


def edit_of(**kw) -> SessionChanges:
    return session_changes(now=NOW, session_zone="America/Los_Angeles", **kw)


async def test_create_and_get_round_trip(session_factory) -> None:
    info = await add(
        session_factory,
        presenter_name="Hamish Ivison",
        papers=["TMax", "arXiv:2401.12345v2", "https://arxiv.org/pdf/2401.12345v3", "Terminal-World"],
        signup_url="lu.ma/paperclub",
        description="Where tasks come from.",
    )
    assert info.id > 0
    assert info.guild_id == GUILD
    assert info.starts_at == NOV5
    assert info.ends_at == NOV5 + timedelta(hours=1)
    assert info.status == "scheduled"
    assert info.sequence == 0
    assert [p.title for p in info.papers] == ["TMax", "arXiv:2401.12345", "Terminal-World"]
    assert info.signup_url == "https://lu.ma/paperclub"
    async with session_factory() as s:
        again = await svc.get_session(s, GUILD, info.id)
    assert again == info


async def test_papers_stored_once_per_guild(session_factory) -> None:
    await add(session_factory, papers=["2401.12345", "TMax"])
    await add(session_factory, title="Second", papers=["https://arxiv.org/abs/2401.12345"])
    await add(session_factory, title="Elsewhere", guild=OTHER_GUILD, papers=["2401.12345"])
    async with session_factory() as s:
        per_guild = (
            await s.execute(
                select(Paper.guild_id, func.count()).group_by(Paper.guild_id).order_by(Paper.guild_id)
            )
        ).all()
    assert [tuple(r) for r in per_guild] == [(GUILD, 2), (OTHER_GUILD, 1)]


async def test_other_guilds_session_is_not_found(session_factory) -> None:
    info = await add(session_factory)
    async with session_factory() as s:
        with pytest.raises(NotFound):
            await svc.get_session(s, OTHER_GUILD, info.id)
        with pytest.raises(NotFound):
            await svc.get_session(s, GUILD, 99999)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"title": "   "}, "title"),
        ({"title": "x" * 201}, "200"),
        ({"start": NOW - timedelta(minutes=1)}, "past"),
        ({"start": NOW + timedelta(days=800)}, "too far"),
        ({"signup_url": "javascript:alert(1)"}, "http"),
        ({"signup_url": "data:text/html,hi"}, "http"),
        ({"duration": 5}, "minutes"),
        ({"timezone": "Mars/Olympus"}, "Mars/Olympus"),
        ({"papers": ["javascript:alert(1)"]}, "http"),
        ({"description": "d" * 2001}, "2000"),
        ({"presenter_name": "n" * 101}, "100"),
    ],
)
async def test_bad_input_is_refused_by_the_draft_and_stores_nothing(session_factory, kw, message) -> None:
    with pytest.raises(BadInput, match=message):
        await add(session_factory, **kw)
    with pytest.raises(BadInput, match=message):
        draft_of(**kw)
    async with session_factory() as s:
        assert await s.scalar(select(func.count()).select_from(ClubSession)) == 0
        assert await s.scalar(select(func.count()).select_from(Paper)) == 0


async def test_duplicate_title_and_start_is_a_conflict(session_factory) -> None:
    await add(session_factory)
    with pytest.raises(Conflict):
        await add(session_factory, title="building  data recipes for TERMINAL agents")
    await add(session_factory, guild=OTHER_GUILD)  # another guild is fine
    await add(session_factory, start=NOV5 + timedelta(days=7))  # another time is fine


def test_resolve_start_reads_the_zone_and_rejects_bad_times() -> None:
    start = rules.resolve_start("2026-11-05 08:00", None, "America/Los_Angeles", NOW)
    assert start.utc == NOV5
    assert start.zone == "America/Los_Angeles"
    assert start.note is None
    uk = rules.resolve_start("5 Nov 2026 4:00 PM", "UK", "America/Los_Angeles", NOW)
    assert uk.utc == NOV5
    assert uk.zone == "Europe/London"
    with pytest.raises(BadInput, match="does not exist"):
        rules.resolve_start("2027-03-14 02:30", "PT", "UTC", NOW)
    ambiguous = rules.resolve_start("2026-11-01 01:30", "PT", "UTC", NOW)
    assert ambiguous.note
    assert "twice" in ambiguous.note
    assert ambiguous.utc == datetime(2026, 11, 1, 8, 30, tzinfo=UTC)  # the first (PDT) one
    with pytest.raises(BadInput):
        rules.resolve_start("someday", None, "UTC", NOW)
    with pytest.raises(BadInput, match="past"):
        rules.resolve_start("2026-10-01 09:00", None, "UTC", NOW)
    with pytest.raises(BadInput, match="Mars"):
        rules.resolve_start("tomorrow 17:00", "Mars/Olympus", "UTC", NOW)


async def test_edit_changes_fields_and_raises_sequence(session_factory) -> None:
    info = await add(session_factory, papers=["TMax"], signup_url="https://lu.ma/a")
    async with session_factory() as s, s.begin():
        edit = await svc.edit_session(
            s,
            GUILD,
            info.id,
            edit_of(
                title="New title", when=NOV5 + timedelta(minutes=90), papers=["TMax", "T1"], signup_url="-"
            ),
            now=NOW,
        )
    assert edit.changed == {"title", "starts_at", "papers", "signup_url"}
    assert edit.info.sequence == 1
    assert [p.title for p in edit.info.papers] == ["TMax", "T1"]
    assert edit.info.signup_url is None
    async with session_factory() as s, s.begin():
        same = await svc.edit_session(
            s, GUILD, info.id, edit_of(title="New title", papers="TMax\nT1"), now=NOW
        )
    assert same.changed == set()
    assert same.info.sequence == 1


async def test_edit_validates_before_writing(session_factory) -> None:
    info = await add(session_factory)
    other = await add(session_factory, title="Other", start=NOV5 + timedelta(days=7))
    with pytest.raises(BadInput):
        edit_of(title="Changed", signup_url="ftp://x")
    with pytest.raises(Conflict):
        async with session_factory() as s, s.begin():
            await svc.edit_session(s, GUILD, other.id, edit_of(title=info.title, when=NOV5), now=NOW)
    async with session_factory() as s:
        assert (await svc.get_session(s, GUILD, info.id)).title == info.title
        with pytest.raises(NotFound):
            await svc.edit_session(s, OTHER_GUILD, info.id, edit_of(title="x"), now=NOW)


async def test_cancel_then_no_more_edits(session_factory) -> None:
    info = await add(session_factory)
    async with session_factory() as s, s.begin():
        cancelled = await svc.cancel_session(s, GUILD, info.id, reason="Presenter ill", now=NOW)
    assert cancelled.is_cancelled
    assert cancelled.sequence == 1
    assert cancelled.cancel_reason == "Presenter ill"
    async with session_factory() as s, s.begin():
        with pytest.raises(Conflict):
            await svc.cancel_session(s, GUILD, info.id, reason=None, now=NOW)
        with pytest.raises(Conflict):
            await svc.edit_session(s, GUILD, info.id, edit_of(title="x"), now=NOW)


async def test_recap_only_after_start(session_factory) -> None:
    info = await add(session_factory)
    with pytest.raises(BadInput, match="not happened"):
        async with session_factory() as s, s.begin():
            await svc.recap_session(s, GUILD, info.id, now=NOW, recording_url="https://youtu.be/x")
    later = NOV5 + timedelta(hours=2)
    with pytest.raises(BadInput, match="at least one"):
        async with session_factory() as s, s.begin():
            await svc.recap_session(s, GUILD, info.id, now=later)
    with pytest.raises(BadInput):
        async with session_factory() as s, s.begin():
            await svc.recap_session(s, GUILD, info.id, now=later, notes_url="javascript:alert(1)")
    async with session_factory() as s, s.begin():
        done = await svc.recap_session(
            s,
            GUILD,
            info.id,
            now=later,
            recording_url="https://youtu.be/x",
            notes_url="https://notes.example/1",
        )
    assert done.recording_url == "https://youtu.be/x"
    assert done.notes_url == "https://notes.example/1"
    assert done.wiki_url is None


async def test_list_upcoming_in_progress_first_then_soonest(session_factory) -> None:
    running = await add(session_factory, title="Running", start=NOW + timedelta(minutes=1), duration=120)
    first = await add(session_factory, title="First", start=NOW + timedelta(hours=3))
    second = await add(session_factory, title="Second", start=NOW + timedelta(days=3))
    cancelled = await add(session_factory, title="Cancelled", start=NOW + timedelta(days=1))
    await add(session_factory, title="Elsewhere", start=NOW + timedelta(days=1), guild=OTHER_GUILD)
    async with session_factory() as s, s.begin():
        await svc.cancel_session(s, GUILD, cancelled.id, reason=None, now=NOW)
    later = NOW + timedelta(minutes=30)  # Running has started, not ended
    async with session_factory() as s:
        ids = [i.id for i in await q.list_upcoming(s, GUILD, later, limit=10)]
        assert ids == [running.id, first.id, second.id]
        assert [i.id for i in await q.list_upcoming(s, GUILD, later, limit=2, offset=1)] == [
            first.id,
            second.id,
        ]
        assert [i.id for i in await q.list_upcoming(s, GUILD, later, limit=1, offset=2)] == [second.id]
        assert await q.count_upcoming(s, GUILD, later) == 3
        calendar = [i.id for i in await q.list_upcoming(s, GUILD, later, include_cancelled=True)]
        assert cancelled.id in calendar
        much_later = NOW + timedelta(hours=2, minutes=30)  # Running over
        assert [i.id for i in await q.list_upcoming(s, GUILD, much_later)] == [first.id, second.id]
        assert await q.count_upcoming(s, GUILD, much_later) == 2


async def test_session_choices_upcoming_then_recent(session_factory) -> None:
    past = await add(session_factory, title="Past one", start=NOW + timedelta(hours=1))
    soon = await add(session_factory, title="Soon " + "x" * 195, start=NOW + timedelta(days=2))
    later = await add(session_factory, title="Later", start=NOW + timedelta(days=9))
    now = NOW + timedelta(days=1)
    async with session_factory() as s:
        choices = await q.session_choices(s, GUILD, now, "", "America/Los_Angeles")
        assert [v for _, v in choices] == [soon.id, later.id, past.id]
        assert all(len(name) <= 100 for name, _ in choices)
        assert choices[0][0].startswith(f"#{soon.id} · Thu 22 Oct 2026 · Soon")
        assert [v for _, v in await q.session_choices(s, GUILD, now, "LATE", "UTC")] == [later.id]
        assert [v for _, v in await q.session_choices(s, GUILD, now, f"#{past.id}", "UTC")][0] == past.id
        assert await q.session_choices(s, OTHER_GUILD, now, "", "UTC") == []
        assert await q.session_choices(s, GUILD, now, "100%_", "UTC") == []


async def test_session_choices_capped_at_25(session_factory) -> None:
    for n in range(30):
        await add(session_factory, title=f"S{n}", start=NOW + timedelta(days=n + 1))
    async with session_factory() as s:
        choices = await q.session_choices(s, GUILD, NOW, "", "UTC")
    assert len(choices) == 25
    assert [name.split(" · ")[-1] for name, _ in choices[:3]] == ["S0", "S1", "S2"]


async def test_toggle_subscription(session_factory) -> None:
    info = await add(session_factory)
    async with session_factory() as s, s.begin():
        assert (await members.toggle_subscription(s, GUILD, info.id, 7, now=NOW)).subscribed is True
        assert (await members.toggle_subscription(s, GUILD, info.id, 8, now=NOW)).subscribed is True
    async with session_factory() as s:
        assert list(await subscriber_ids(s, info.id)) == [7, 8]
        row = await s.get(SessionSubscription, (info.id, 7))
        assert row is not None
        assert row.before_minutes == 60
    async with session_factory() as s, s.begin():
        assert (await members.toggle_subscription(s, GUILD, info.id, 7, now=NOW)).subscribed is False
    async with session_factory() as s:
        assert list(await subscriber_ids(s, info.id)) == [8]
        with pytest.raises(NotFound):
            await members.toggle_subscription(s, OTHER_GUILD, info.id, 7, now=NOW)
    async with session_factory() as s, s.begin():
        await svc.cancel_session(s, GUILD, info.id, reason=None, now=NOW)
    async with session_factory() as s, s.begin():
        with pytest.raises(Conflict):
            await members.toggle_subscription(s, GUILD, info.id, 9, now=NOW)
        assert (
            await members.toggle_subscription(s, GUILD, info.id, 8, now=NOW)
        ).subscribed is False  # leaving still works


async def test_racing_twin_is_a_conflict_not_a_crash(session_factory, monkeypatch) -> None:
    async def no_check(*args, **kwargs) -> None:
        return None

    await add(session_factory)
    monkeypatch.setattr(svc, "_ensure_no_duplicate", no_check)  # as if both checked before either wrote
    with pytest.raises(Conflict, match="just saved"):
        await add(session_factory)
    async with session_factory() as s:
        assert await s.scalar(select(func.count()).select_from(ClubSession)) == 1


async def test_new_rows_are_stamped_with_the_given_now_not_the_wall_clock(session_factory) -> None:
    info = await add(session_factory, papers=["2401.12345", "A paper nobody has stored yet"])
    async with session_factory() as s:
        row = await s.get(ClubSession, info.id)
        assert row is not None
        assert (row.created_at, row.updated_at) == (NOW, NOW)
        papers = list((await s.execute(select(Paper).where(Paper.guild_id == GUILD))).scalars())
    assert len(papers) == 2
    assert all(p.created_at == NOW for p in papers)
