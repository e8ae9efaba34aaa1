"""The site's routes with aiohttp's test client, on the club's real programme (examples/club.yaml):
each page and feed, 404s, caching headers, read-only methods, the security headers."""

from __future__ import annotations

from datetime import timedelta
from xml.etree import ElementTree

import icalendar
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import select

from bot.services.site import config as site_config
from db.models import ClubSession
from db.models.reading import ReadingList
from tests.site.conftest import (
    CLUB_NOV5,
    CLUB_NOV19,
    OTHER_GUILD,
    PUBLIC,
    Club,
    enable_site,
    import_club,
    site_app,
)
from tests.site.helpers import assert_nothing_runs, text_of

ATOM = "{http://www.w3.org/2005/Atom}"


async def _session_id(club: Club, title: str, guild_id: int | None = None) -> int:
    async with club.session_factory() as session:
        return int(
            await session.scalar(
                select(ClubSession.id).where(
                    ClubSession.title == title, ClubSession.guild_id == (guild_id or club.guild_id)
                )
            )
        )


async def test_home_reads_as_the_club_page(client: TestClient) -> None:
    answer = await client.get("/paper-club/")
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "text/html; charset=utf-8"
    html = await answer.text()
    assert '<html lang="en">' in html
    assert_nothing_runs(html)
    text = text_of(html.split('<main id="main">')[1])
    assert (
        f"{CLUB_NOV5} — Building data recipes for terminal agents. Hamish Ivison presents TMax, read against "
        "Terminal-World and T1: where tasks come from, how they are checked, what the reward sees, and SFT versus RL."
    ) in text
    assert f"{CLUB_NOV19} — User models and user simulators. Persimmon and Turing-RL" in text
    assert (
        "16 October — Sandbox infrastructure for environments at scale. DSec, the sandbox platform behind "
        "DeepSeek’s RL: what you need underneath before environment creation can scale."
    ) in text
    assert "5 May — Gym-Anything: autoscaling CUA. Gym-Anything and its CUA-World" in text
    assert "11 February — OS-Genesis: reverse task synthesis. OS-Genesis on starting" in text
    # in the club page's order
    order = ["Next sessions", "How it runs", "Reading so far", "Reading lists", "Suggesting a paper"]
    assert [text.index(h) for h in order] == sorted(text.index(h) for h in order)
    assert "ITSMBench" in text
    assert "WorldSmith" in text
    assert "environment generation, verifier soundness, user simulators, and benchmark validity" in text
    assert "webcal://club.example.org/paper-club/calendar.ics" in html


async def test_session_page(client: TestClient, club: Club) -> None:
    sid = await _session_id(club, "Building data recipes for terminal agents")
    answer = await client.get(f"/paper-club/sessions/{sid}/")
    assert answer.status == 200
    html = await answer.text()
    assert_nothing_runs(html)
    text = text_of(html.split('<main id="main">')[1])
    assert "<h1>Building data recipes for terminal agents</h1>" in html
    assert f"{CLUB_NOV5} · 1 hour" in text
    assert (
        "Hamish Ivison presents TMax, read against Terminal-World and T1: where tasks come from, how they are "
        "checked, what the reward sees, and SFT versus RL. Sign up"
    ) in text
    assert text.count("Hamish Ivison") == 1  # said once: no Presenter line, no About text again
    assert text.count("Sign up") == 1
    assert 'datetime="2026-11-05T16:00:00Z"' in html  # what site.js shows in the reader's zone


async def test_list_archive_and_search_pages(client: TestClient, club: Club) -> None:
    async with club.session_factory() as session:
        list_id = await session.scalar(select(ReadingList.id).where(ReadingList.name == "WorldSmith"))
    answer = await client.get(f"/paper-club/lists/{list_id}/")
    text = text_of(await answer.text())
    assert answer.status == 200
    assert "WorldSmith" in text
    assert "Gym-Anything" in text
    assert "10K+ autoscaled computer-use tasks" in text
    past = text_of(await (await client.get("/paper-club/past/")).text())
    assert "13 sessions, newest first" in past
    found = await client.get("/paper-club/search", params={"q": "AutoEnv"})
    html = await found.text()
    assert found.status == 200
    assert "<mark>AutoEnv</mark>" in html
    assert "Priorities in LLM-generated environments" in text_of(html)
    empty = await client.get("/paper-club/search", params={"q": "zzzqqq"})
    assert "Nothing matches" in text_of(await empty.text())


async def test_calendar_feed_parses_and_keeps_its_etag(client: TestClient, club: Club) -> None:
    answer = await client.get("/paper-club/calendar.ics")
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "text/calendar; charset=utf-8"
    calendar = icalendar.Calendar.from_ical(await answer.read())
    events = {str(e["SUMMARY"]): e for e in calendar.walk("VEVENT")}
    assert {"Building data recipes for terminal agents", "User models and user simulators"} <= set(events)
    assert "Sandbox infrastructure for environments at scale" in events  # recent (within 90 days)
    assert "Tool-graph environment synthesis" not in events  # April: too old for the feed
    sid = await _session_id(club, "User models and user simulators")
    assert (
        str(events["User models and user simulators"]["UID"])
        == f"session-{club.guild_id}-{sid}@paperclub.invalid"
    )
    etag = answer.headers["ETag"]
    await club.clock.advance(timedelta(minutes=5))  # later: the same sessions give the same bytes
    again = await client.get("/paper-club/calendar.ics", headers={"If-None-Match": etag})
    assert again.status == 304
    assert again.headers["ETag"] == etag
    assert await again.read() == b""


async def test_cancelled_session_is_marked_in_the_feed(client: TestClient, club: Club) -> None:
    from bot.services.sessions.store import cancel_session

    sid = await _session_id(club, "User models and user simulators")
    first = await client.get("/paper-club/calendar.ics")
    async with club.session_factory() as session, session.begin():
        await cancel_session(session, club.guild_id, sid, reason="Speaker ill", now=club.clock.now())
    answer = await client.get("/paper-club/calendar.ics", headers={"If-None-Match": first.headers["ETag"]})
    assert answer.status == 200
    events = {str(e["SUMMARY"]): e for e in icalendar.Calendar.from_ical(await answer.read()).walk("VEVENT")}
    event = events["User models and user simulators"]
    assert str(event["STATUS"]) == "CANCELLED"
    assert int(event["SEQUENCE"]) == 1
    page = text_of(await (await client.get(f"/paper-club/sessions/{sid}/")).text())
    assert "This session is cancelled — Speaker ill" in page
    home = " ".join(text_of(await (await client.get("/paper-club/")).text()).split()).replace(" ,", ",")
    assert "User models and user simulators" not in home.split("How it runs")[0]


async def test_atom_feed_parses(client: TestClient) -> None:
    answer = await client.get("/paper-club/feed.atom")
    assert answer.status == 200
    assert answer.headers["Content-Type"] == "application/atom+xml; charset=utf-8"
    feed = ElementTree.fromstring(await answer.read())
    assert feed.tag == f"{ATOM}feed"
    assert feed.find(f"{ATOM}id") is not None
    assert feed.find(f"{ATOM}updated") is not None
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == 15
    titles = {e.findtext(f"{ATOM}title") for e in entries}
    assert "Building data recipes for terminal agents" in titles
    for entry in entries:
        assert entry.find(f"{ATOM}link").get("href").startswith("sessions/")
        assert entry.findtext(f"{ATOM}id").startswith("tag:paperclub.invalid,2026:paper-club/sessions/")


async def test_caching_head_and_read_only(client: TestClient) -> None:
    first = await client.get("/paper-club/")
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"].startswith("public")
    assert (await client.get("/paper-club/", headers={"If-None-Match": f'W/{etag}, "other"'})).status == 304
    assert (await client.get("/paper-club/", headers={"If-None-Match": '"other"'})).status == 200
    head = await client.head("/paper-club/")
    assert head.status == 200
    assert head.headers["ETag"] == etag
    assert await head.read() == b""
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert (await client.request(method, "/paper-club/")).status == 405
    csp = first.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp
    assert "script-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert first.headers["X-Content-Type-Options"] == "nosniff"
    for name in ("style.css", "site.js"):
        asset = await client.get(f"/paper-club/{name}")
        assert asset.status == 200
        assert asset.headers["ETag"]
    assert (await client.get("/paper-club/style.css")).headers["Content-Type"].startswith("text/css")


async def test_unknown_things_are_one_plain_404(client: TestClient, club: Club) -> None:
    await import_club(club.session_factory, OTHER_GUILD)  # another server, its site off
    other = await _session_id(club, "Building data recipes for terminal agents", OTHER_GUILD)
    paths = [
        "/no-such-club/",
        "/paper-club/sessions/999999/",
        f"/paper-club/sessions/{other}/",  # another server's session, under this slug
        "/paper-club/lists/999/",
        "/paper-club/past/99/",
        "/paper-club/past/1/",
        "/paper-club/nothing/here",
        "/paper-club/calendar/" + "A" * 43 + ".ics",
        "/Paper-Club/",
    ]
    for path in paths:
        answer = await client.get(path)
        assert answer.status == 404, path
        assert "Not found" in await answer.text()
        assert "Content-Security-Policy" in answer.headers
    bare = await client.get("/paper-club", allow_redirects=False)
    assert bare.status == 301
    assert bare.headers["Location"] == "/paper-club/"
    assert (await client.get("/no-such-club", allow_redirects=False)).status == 404


async def test_nothing_is_served_before_the_guild_opts_in_or_after_it_opts_out(club: Club) -> None:
    await import_club(club.session_factory, OTHER_GUILD)
    async with club.session_factory() as session, session.begin():
        await site_config.set_about(session, OTHER_GUILD, "secret plans", now=club.clock.now())
    async with TestClient(TestServer(site_app(club))) as http:
        assert (await http.get("/paper-club/")).status == 200
        async with club.session_factory() as session, session.begin():
            await site_config.set_website(
                session, club.guild_id, enabled=False, slug=None, title=None, now=club.clock.now()
            )
        for path in (
            "/paper-club/",
            "/paper-club/calendar.ics",
            "/paper-club/feed.atom",
            "/paper-club/style.css",
        ):
            assert (await http.get(path)).status == 404, path
        await enable_site(club.session_factory, OTHER_GUILD, "other-club", about=None)
        answer = await http.get("/other-club/")
        assert answer.status == 200  # the same slug scheme, its own programme
        assert "secret plans" in await answer.text()  # its about text, set before it opted in


async def test_no_public_address_means_no_webcal_link(club: Club) -> None:
    async with TestClient(TestServer(site_app(club, public=None))) as http:
        html = await (await http.get("/paper-club/")).text()
    assert "webcal://" not in html
    assert 'href="./calendar.ics"' in html
    assert PUBLIC not in html


async def test_calendar_links_the_page_of_a_sessions_one_main_paper(client: TestClient, club: Club) -> None:
    from db.models import Paper

    answer = await client.get("/paper-club/calendar.ics")
    events = {str(e["SUMMARY"]): e for e in icalendar.Calendar.from_ical(await answer.read()).walk("VEVENT")}
    async with club.session_factory() as session:
        dsec = await session.scalar(
            select(Paper.id).where(Paper.guild_id == club.guild_id, Paper.title == "DSec")
        )
    page = f"{PUBLIC}/paper-club/papers/{dsec}/"
    one = events["Sandbox infrastructure for environments at scale"]
    assert str(one["URL"]) == page  # no sign-up page: URL (at most one, RFC 5545) is the paper's page
    assert f"Paper page: {page}" in str(one["DESCRIPTION"])
    two = events["User models and user simulators"]  # two main papers: no one paper's page
    assert str(two["URL"]) == "https://lu.ma/paper-club-user-simulators"  # its sign-up page
    assert "Paper page" not in str(two["DESCRIPTION"])
    assert (await client.get(f"/paper-club/papers/{dsec}/")).status == 200


async def test_calendar_without_a_public_address_links_no_paper_page(club: Club) -> None:
    async with TestClient(TestServer(site_app(club, public=None))) as bare:
        answer = await bare.get("/paper-club/calendar.ics")
        body = (await answer.read()).decode()
    assert "Paper page" not in body
    assert "/papers/" not in body


async def test_session_page_names_each_paper_once_with_roles_only_where_given(
    client: TestClient, club: Club
) -> None:
    from db.models import Paper

    sid = await _session_id(club, "Building data recipes for terminal agents")
    async with club.session_factory() as session:
        rows = {
            p.title: p for p in await session.scalars(select(Paper).where(Paper.guild_id == club.guild_id))
        }
    html = await (await client.get(f"/paper-club/sessions/{sid}/")).text()
    for title in ("TMax", "Terminal-World", "T1"):  # linked where the club's sentence names them, once
        assert html.count(f'href="../../papers/{rows[title].id}/"') == 1, title
    assert "(read against)" not in html
    home = text_of(await (await client.get("/paper-club/")).text())
    assert home.count("TMax, read against Terminal-World and T1") == 1
    # A session nobody described: its papers said from its fields, with roles only where the club gave them
    other = await _session_id(club, "Verifiers and trustworthy evals")
    async with club.session_factory() as session, session.begin():
        for row in await session.scalars(select(ClubSession).where(ClubSession.id.in_([sid, other]))):
            row.description = None
        rows["T1"].title = "T1 <script>alert(1)</script> @everyone"
        session.add(rows["T1"])
    html = await (await client.get(f"/paper-club/sessions/{sid}/")).text()
    assert "<script>alert(1)</script>" not in html
    assert (
        "Hamish Ivison presents TMax, read against Terminal-World and T1 <script>alert(1)</script> @everyone."
        in (text_of(html))
    )
    flat = text_of(await (await client.get(f"/paper-club/sessions/{other}/")).text())
    assert "SWE-Bench Verified, OSWorld-Verified, ComputerRL and BenchGuard." in flat
    assert "against" not in flat
