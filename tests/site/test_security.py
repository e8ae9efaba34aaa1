"""What the site must never show or run: hostile text in every field that shows is escaped (and no
script or handler gets through), no Discord user ids, no withdrawn or declined suggestions, no personal
reminders except through their owner's secret feed."""

from __future__ import annotations

import re
from datetime import timedelta

import icalendar
import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.services.site import config as site_config
from db.models import ClubSession, Paper, SessionPaper, SessionSubscription
from db.models.core import CalendarToken, SiteSettings
from db.models.reading import ReadingList, ReadingListItem
from db.models.suggestions import Suggestion
from tests.site.conftest import GUILD, OCTOBER, Club
from tests.site.helpers import assert_nothing_runs, text_of

SCRIPT = "<script>window.__pwned=1</script>"
BREAKOUT = '"><img src=x onerror="window.__pwned=1">'
JS_LINK = "javascript:window.__pwned=1"
MEMBER_ID = 987654321987654321
SUBMITTER_ID = 876543218765432187


def hostile(field: str) -> str:
    return f"{field} {SCRIPT} {BREAKOUT}"


async def seed_hostile(club: Club) -> dict[str, int]:
    """Hostile text written straight into the store (past the services' checks, as an old row or another
    writer might): every field the pages show."""
    async with club.session_factory() as session, session.begin():
        paper = Paper(
            guild_id=GUILD,
            key="url:hostile",
            kind="url",
            title=hostile("paper title"),
            normalized_title="paper title hostile",
            url=JS_LINK,
            wiki_url=JS_LINK,
        )
        safe_paper = Paper(
            guild_id=GUILD,
            key="arxiv:2406.12045",
            kind="arxiv",
            title=hostile("arxiv paper"),
            normalized_title="arxiv paper",
            url="https://arxiv.org/abs/2406.12045",
            arxiv_id="2406.12045",
        )
        session.add_all([paper, safe_paper])
        await session.flush()

        def club_session(title: str, starts: timedelta, **extra: object) -> ClubSession:
            return ClubSession(
                guild_id=GUILD,
                title=hostile(title),
                description=hostile("description") + "\n\n" + hostile("second paragraph"),
                starts_at=OCTOBER + starts,
                duration_minutes=60,
                timezone="America/Los_Angeles",
                presenter_id=MEMBER_ID,
                presenter_name=hostile("presenter"),
                signup_url=JS_LINK,
                created_at=OCTOBER,
                updated_at=OCTOBER,
                **extra,
            )

        upcoming = club_session("upcoming", timedelta(days=3))
        past = club_session(
            "past",
            timedelta(days=-3),
            recording_url=JS_LINK,
            notes_url=JS_LINK,
            wiki_url="https://wiki.example.org/x?a=1&b=" + BREAKOUT,
            thread_id=1234,
        )
        cancelled = club_session(
            "cancelled", timedelta(days=5), status="cancelled", cancel_reason=hostile("reason")
        )
        session.add_all([upcoming, past, cancelled])
        await session.flush()
        for row in (upcoming, past, cancelled):
            session.add(SessionPaper(session_id=row.id, paper_id=paper.id, position=0))
            session.add(SessionPaper(session_id=row.id, paper_id=safe_paper.id, position=1))
        reading = ReadingList(
            guild_id=GUILD,
            name=hostile("list"),
            normalized_name="hostile list",
            description=hostile("list description"),
        )
        session.add(reading)
        await session.flush()
        session.add(ReadingListItem(list_id=reading.id, paper_id=paper.id, position=0, note=hostile("note")))
        for status in ("shortlisted", "withdrawn", "declined"):
            session.add(
                Suggestion(
                    guild_id=GUILD,
                    paper_id=paper.id if status == "shortlisted" else safe_paper.id,
                    submitter_id=SUBMITTER_ID,
                    reason=hostile(f"{status} reason"),
                    topic=hostile("topic")[:50],
                    status=status,
                )
            )
        row = await session.get(SiteSettings, GUILD)
        assert row is not None
        row.about = hostile("about") + f"\n\n[x]({JS_LINK})"  # /setup about refuses both now
        row.intro = hostile("intro") + f" [y]({JS_LINK})"
        row.discord_invite = JS_LINK
        return {"upcoming": upcoming.id, "past": past.id, "cancelled": cancelled.id, "list": reading.id}


async def test_hostile_text_is_escaped_everywhere(client: TestClient, club: Club) -> None:
    ids = await seed_hostile(club)
    paths = {
        "home": "/paper-club/",
        "upcoming": f"/paper-club/sessions/{ids['upcoming']}/",
        "past": f"/paper-club/sessions/{ids['past']}/",
        "cancelled": f"/paper-club/sessions/{ids['cancelled']}/",
        "list": f"/paper-club/lists/{ids['list']}/",
        "archive": "/paper-club/past/",
        "search": "/paper-club/search?q=" + "hostile+" + SCRIPT.replace("<", "%3C"),
    }
    for name, path in paths.items():
        answer = await client.get(path)
        assert answer.status == 200, name
        html = await answer.text()
        assert SCRIPT not in html, name
        assert "<img" not in html, name
        assert_nothing_runs(html)
        assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html, name  # shown, as text
        assert str(MEMBER_ID) not in html, name
        assert str(SUBMITTER_ID) not in html, name
    home = await (await client.get("/paper-club/")).text()
    shown = text_of(home)
    for field in (
        "upcoming",
        "past",
        "presenter",
        "description",
        "paper title",
        "list",
        "list description",
        "about",
        "intro",
        "shortlisted reason",
    ):
        assert f"{field} {SCRIPT} {BREAKOUT}" in shown, field
    assert f'="{JS_LINK}' not in home  # neither the Markdown's link nor the invite is linked (text only)
    assert "withdrawn reason" not in home
    assert "declined reason" not in home
    past = text_of(await (await client.get(paths["past"])).text())
    assert "second paragraph" in past
    assert "arxiv paper" in past
    past_html = await (await client.get(paths["past"])).text()
    paper_page = re.search(r'href="\.\./\.\./(papers/\d+/)">arxiv paper', past_html)
    assert paper_page is not None  # named once, linked to its page, which links arXiv and the PDF
    paper_html = await (await client.get(f"/paper-club/{paper_page.group(1)}")).text()
    assert 'href="https://arxiv.org/abs/2406.12045"' in paper_html
    assert 'href="https://arxiv.org/pdf/2406.12045"' in paper_html
    assert "https://discord.com/channels/" in past_html  # the discussion thread (channel ids only)
    assert "<iframe" not in past_html  # a javascript: "recording" is neither embedded nor linked
    cancelled = text_of(await (await client.get(paths["cancelled"])).text())
    assert f"reason {SCRIPT}" in cancelled
    list_page = text_of(await (await client.get(paths["list"])).text())
    assert f"note {SCRIPT}" in list_page


async def test_feeds_hold_hostile_text_as_data(client: TestClient, club: Club) -> None:
    await seed_hostile(club)
    from xml.etree import ElementTree

    feed = ElementTree.fromstring(await (await client.get("/paper-club/feed.atom")).read())
    titles = [
        e.findtext("{http://www.w3.org/2005/Atom}title")
        for e in feed.findall("{http://www.w3.org/2005/Atom}entry")
    ]
    assert any(SCRIPT in (t or "") for t in titles)  # parsed back as the text it is, not markup
    calendar = icalendar.Calendar.from_ical(await (await client.get("/paper-club/calendar.ics")).read())
    assert any(SCRIPT in str(e["SUMMARY"]) for e in calendar.walk("VEVENT"))


async def test_recordings_embed_only_the_three_hosts(client: TestClient, club: Club) -> None:
    async with club.session_factory() as session, session.begin():
        rows = (
            await session.scalars(
                select(ClubSession).where(ClubSession.guild_id == GUILD).order_by(ClubSession.id)
            )
        ).all()
        rows[2].recording_url = "https://youtu.be/dQw4w9WgXcQ"
        rows[3].recording_url = "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ"
    good = await (await client.get(f"/paper-club/sessions/{rows[2].id}/")).text()
    assert '<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"' in good
    bad = await (await client.get(f"/paper-club/sessions/{rows[3].id}/")).text()
    assert "<iframe" not in bad
    assert 'href="https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ"' in bad  # a plain link


async def test_personal_feed_is_secret_and_revocable(client: TestClient, club: Club) -> None:
    async with club.session_factory() as session, session.begin():
        rows = (
            await session.scalars(
                select(ClubSession)
                .where(ClubSession.guild_id == GUILD)
                .order_by(ClubSession.starts_at.desc())
            )
        ).all()
        mine, theirs = rows[0], rows[1]  # 19 and 5 November
        session.add(SessionSubscription(session_id=mine.id, user_id=MEMBER_ID, before_minutes=60))
        session.add(SessionSubscription(session_id=theirs.id, user_id=SUBMITTER_ID, before_minutes=60))
        issued = await site_config.issue(session, GUILD, MEMBER_ID, now=OCTOBER, reset=False)
    assert issued.token is not None
    assert len(issued.token) >= 43
    async with club.session_factory() as session:
        stored = (await session.scalars(select(CalendarToken))).all()
    assert [row.token_hash for row in stored] == [site_config.token_hash(issued.token)]
    assert issued.token not in stored[0].token_hash  # only the hash is kept

    answer = await client.get(f"/paper-club/calendar/{issued.token}.ics")
    assert answer.status == 200
    assert answer.headers["Cache-Control"].startswith("private")
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    events = list(icalendar.Calendar.from_ical(await answer.read()).walk("VEVENT"))
    assert [str(e["SUMMARY"]) for e in events] == [mine.title]
    assert (await client.get(f"/paper-club/calendar/{issued.token[:-1]}x.ics")).status == 404

    async with club.session_factory() as session, session.begin():
        again = await site_config.issue(session, GUILD, MEMBER_ID, now=OCTOBER, reset=False)
        assert again.token is None  # shown once only
        fresh = await site_config.issue(session, GUILD, MEMBER_ID, now=OCTOBER, reset=True)
    assert fresh.token is not None
    assert fresh.replaced
    assert (await client.get(f"/paper-club/calendar/{issued.token}.ics")).status == 404
    assert (await client.get(f"/paper-club/calendar/{fresh.token}.ics")).status == 200
    async with club.session_factory() as session, session.begin():
        await site_config.set_website(session, GUILD, enabled=False, slug=None, title=None, now=OCTOBER)
    assert (await client.get(f"/paper-club/calendar/{fresh.token}.ics")).status == 404


@pytest.mark.parametrize("slug", ["paper-club", "PAPER-CLUB"])
async def test_a_taken_slug_is_refused(club: Club, slug: str) -> None:
    from bot.errors import Conflict

    async with club.session_factory() as session, session.begin():
        with pytest.raises(Conflict):
            await site_config.set_website(
                session, GUILD + 1, enabled=True, slug=slug, title=None, now=OCTOBER
            )
