"""What a link pasted in Discord (or found by a search engine) reads: every page's Open Graph tags and Twitter
card, a session page's schema.org Event (JSON-LD) parsed back and checked against the session, the footer's
zone names against the times the page shows, and hostile titles inert in both."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from db.models import ClubSession, Paper
from db.models.reading import ReadingList
from tests.site.conftest import PUBLIC, Club
from tests.site.helpers import assert_nothing_runs, parse, text_of

NASTY = 'Agents </script><script>window.__pwned=1</script> "quoted" --> <!-- end'


def previews(html: str) -> dict[str, str]:
    """The page's Open Graph and Twitter <meta> tags, as a link preview reads them."""
    found: dict[str, str] = {}
    for tag, attrs in parse(html).tags:
        name = attrs.get("property") or attrs.get("name") or ""
        if tag == "meta" and name.startswith(("og:", "twitter:")):
            assert name not in found, name  # each once
            found[name] = attrs.get("content") or ""
    return found


def events(html: str) -> list[dict[str, object]]:
    """Each JSON-LD block's object, parsed the way a search engine does (the block's text, as JSON)."""
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S)
    return [json.loads(block) for block in blocks]


async def _ids(club: Club) -> dict[str, int]:
    async with club.session_factory() as session:
        sessions = {r.title: r.id for r in await session.scalars(select(ClubSession))}
        papers = {r.title: r.id for r in await session.scalars(select(Paper))}
        lists = {r.name: r.id for r in await session.scalars(select(ReadingList))}
    return {**sessions, **papers, **lists}


async def test_every_page_carries_what_a_link_preview_needs(client: TestClient, club: Club) -> None:
    ids = await _ids(club)
    home = f"{PUBLIC}/paper-club/"
    pages = {
        "": ("Paper club", "A paper a week on RL environments, benchmarks, simulators"),
        f"sessions/{ids['Building data recipes for terminal agents']}/": (
            "Building data recipes for terminal agents",
            "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST. Hamish Ivison presents TMax, read",
        ),
        f"lists/{ids['WorldSmith']}/": ("WorldSmith", "Generating worlds for agents"),
        f"papers/{ids['DSec']}/": ("DSec", "DSec, in Paper club"),
        "past/": ("Reading so far", "Every session Paper club has held"),
        "search?q=AutoEnv": ("Search: AutoEnv", "Search the sessions, papers and reading lists"),
    }
    for path, (title, description) in pages.items():
        html = await (await client.get(f"/paper-club/{path}")).text()
        tags = previews(html)
        assert set(tags) == {
            "og:type",
            "og:site_name",
            "og:title",
            "og:description",
            "og:url",
            "twitter:card",
        }, path
        assert tags["og:title"] == title, path
        assert tags["og:description"].startswith(description), (path, tags["og:description"])
        assert len(tags["og:description"]) <= 200, path
        assert tags["og:url"] == home + path.split("?")[0], path  # a search's address, without the query
        assert tags["og:site_name"] == "Paper club"
        assert tags["twitter:card"] == "summary"


async def test_a_session_page_is_a_schema_org_event(client: TestClient, club: Club) -> None:
    ids = await _ids(club)
    sid = ids["Building data recipes for terminal agents"]
    html = await (await client.get(f"/paper-club/sessions/{sid}/")).text()
    (event,) = events(html)
    assert event["@context"] == "https://schema.org"
    assert event["@type"] == "Event"
    assert event["name"] == "Building data recipes for terminal agents"
    start, end = (datetime.fromisoformat(str(event[k])) for k in ("startDate", "endDate"))
    assert start == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)  # the session's instant: 8:00 AM PT
    assert end == datetime(2026, 11, 5, 17, 0, tzinfo=UTC)
    assert str(event["startDate"]).endswith("-08:00")  # written in the club's zone
    assert event["eventAttendanceMode"] == "https://schema.org/OnlineEventAttendanceMode"
    assert event["eventStatus"] == "https://schema.org/EventScheduled"
    assert event["location"] == {
        "@type": "VirtualLocation",
        "url": "https://lu.ma/paper-club-terminal-agents",
    }
    assert event["organizer"] == {
        "@type": "Organization",
        "name": "Paper club",
        "url": f"{PUBLIC}/paper-club/",
    }
    assert event["performer"] == {"@type": "Person", "name": "Hamish Ivison"}
    assert event["about"] == [
        {"@type": "ScholarlyArticle", "name": title, "url": f"{PUBLIC}/paper-club/papers/{ids[title]}/"}
        for title in ("TMax", "Terminal-World", "T1")
    ]
    assert event["url"] == f"{PUBLIC}/paper-club/sessions/{sid}/"
    assert str(event["description"]).startswith("Hamish Ivison presents TMax, read against Terminal-World")
    # a session the club dated only: its date, no time
    dated = events(
        await (await client.get(f"/paper-club/sessions/{ids['OS-Genesis: reverse task synthesis']}/")).text()
    )
    assert (dated[0]["startDate"], dated[0]["endDate"]) == ("2026-02-11", "2026-02-11")
    home = await (await client.get("/paper-club/")).text()
    assert events(home) == []  # only a session page is an event


async def test_the_footer_names_the_zones_as_the_times_do(client: TestClient) -> None:
    text = text_of(await (await client.get("/paper-club/")).text())
    assert "Times are in PT, GMT/BST and IST." in text
    assert "Europe/London" not in text
    shown = set(re.findall(r"\d:\d\d [AP]M ([A-Z]+)", text))
    assert shown == {"PT", "GMT", "IST"}  # November: London is on GMT
    footer = text.split("Times are in ")[1].split(".")[0]
    named = {part for zone in re.split(r", | and ", footer) for part in zone.split("/")}
    assert shown <= named


async def test_hostile_titles_stay_inert_in_previews_and_json_ld(client: TestClient, club: Club) -> None:
    ids = await _ids(club)
    sid = ids["Building data recipes for terminal agents"]
    async with club.session_factory() as session, session.begin():
        row = await session.get(ClubSession, sid)
        paper = await session.get(Paper, ids["T1"])
        assert row is not None
        assert paper is not None
        row.title = NASTY
        row.presenter_name = NASTY
        paper.title = NASTY
    html = await (await client.get(f"/paper-club/sessions/{sid}/")).text()
    assert_nothing_runs(html)
    assert "</script><script>" not in html
    assert "<!--" not in html.split("<body>")[0].replace("<!doctype html>", "")
    tags = previews(html)
    assert tags["og:title"] == NASTY  # the title, as text: quotes and brackets escaped in the attribute
    assert NASTY in tags["og:description"]
    (event,) = events(html)  # one block, which parses back to exactly what was typed
    assert event["name"] == NASTY
    assert event["performer"] == {"@type": "Person", "name": NASTY}
    assert NASTY in [a["name"] for a in event["about"]]  # type: ignore[index, union-attr]
    block = html.split('<script type="application/ld+json">')[1].split("</script>")[0]
    assert not {"<", ">", "&"} & set(block)
    assert f"<title>{NASTY}" not in html
    assert text_of(html).count("window.__pwned") >= 1  # shown as text on the page
