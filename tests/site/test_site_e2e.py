"""The website from Discord, end to end through the stand-in with the real discord.py client: /setup
website and about (Manage Server, checked in code), /setup show's address, the Session page link on
/session show and announcements, /calendar link and reset. Pages fetched from the bot's own server."""

from __future__ import annotations

import re
from typing import Any

import aiohttp
import icalendar
import pytest

from bot.demo.botenv import BotEnv
from tests.cards import card_fields
from tests.sessions.helpers import OCTOBER, add_session, configure
from tests.site.helpers import assert_nothing_runs, text_of

URL = re.compile(r"<(http://127\.0\.0\.1:\d+/[^>\s]+)>")


@pytest.fixture
def bot_settings_overrides(arxiv: Any) -> dict[str, Any]:
    return {"arxiv_api_url": arxiv.url, "web_port": 0}


@pytest.fixture
async def env(discord_env: BotEnv) -> BotEnv:
    await discord_env.clock.set(OCTOBER)
    return discord_env


async def fetch(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url, allow_redirects=False) as answer:
        return answer.status, await answer.text()


async def turn_on(env: BotEnv, slug: str = "paper-club") -> str:
    reply = await (
        await env.invoke("setup website", {"enabled": True, "slug": slug}, member=env.admin)
    ).response()
    assert reply.ephemeral
    assert env.bot.web is not None
    home = f"{env.bot.web.public_url}/{slug}/"
    assert reply.content.startswith(f"Website on: {home}.")
    return home


async def test_setup_website_needs_manage_server_and_serves_the_page(env: BotEnv) -> None:
    assert env.bot.web is not None
    status, _ = await fetch(f"{env.bot.web.public_url}/paper-club/")
    assert status == 404  # nothing before the server opts in
    refused = await (
        await env.invoke("setup website", {"enabled": True, "slug": "paper-club"}, member=env.organizer)
    ).response()
    assert refused.ephemeral
    assert "Manage Server" in refused.content
    bad = await (await env.invoke("setup website", {"enabled": True}, member=env.admin)).response()
    assert bad.ephemeral
    assert "slug" in bad.content
    bad = await (
        await env.invoke("setup website", {"enabled": True, "slug": "Not a slug!"}, member=env.admin)
    ).response()
    assert "lower-case letters" in bad.content
    home = await turn_on(env)
    status, html = await fetch(home)
    assert status == 200
    assert "<h1>Paper Club</h1>" in html  # the server's name
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    fields = card_fields(shown)
    assert fields["Website"] == f"on: {home}"
    off = await (await env.invoke("setup website", {"enabled": False}, member=env.admin)).response()
    assert "Nothing of this server is served now" in off.content
    assert (await fetch(home))[0] == 404
    shown = await (await env.invoke("setup show", member=env.organizer)).response()
    fields = card_fields(shown)
    assert fields["Website"] == "off (address `/paper-club/` kept)"


async def test_setup_about_line_and_form(env: BotEnv) -> None:
    home = await turn_on(env)
    refused = await (await env.invoke("setup about", {"text": "x"}, member=env.members[0])).response()
    assert "Manage Server" in refused.content
    for hostile, why in (
        ("**Format.** An hour <script>x()</script>", "raw HTML (“<script>”)"),
        ("**Format.** [An hour](javascript:x())", "links to “javascript:x()”"),
    ):
        refused = await (await env.invoke("setup about", {"text": hostile}, member=env.admin)).response()
        assert refused.ephemeral
        assert why in refused.content  # said, and nothing saved
    _, html = await fetch(home)
    assert "Format." not in html
    saved = await (
        await env.invoke("setup about", {"text": "**Format.** An hour."}, member=env.admin)
    ).response()
    assert "saved" in saved.content
    _, html = await fetch(home)
    assert "<strong>Format.</strong> An hour." in html
    opened = await env.invoke("setup about", {}, member=env.admin)
    modal = (await opened.response()).modal
    assert modal is not None
    text = "- **Format.** An hour.\n- **Where.** A [video call](https://lu.ma/club)."
    submitted = await env.submit_modal(opened, {"site_about:text": text}, member=env.admin)
    assert "saved" in (await submitted.response()).content
    _, html = await fetch(home)
    assert_nothing_runs(html)
    assert (
        '<li><strong>Where.</strong> A <a href="https://lu.ma/club" rel="nofollow noopener">video call</a>.</li>'
        in html
    )


async def test_session_page_link_on_show_and_announcement(env: BotEnv) -> None:
    await configure(env)
    session_id = await add_session(
        env, "Building data recipes", "2026-11-05 08:00", presenter_name="Hamish Ivison"
    )
    shown = await (await env.invoke("session show", {"session": session_id}, member=env.members[0])).final()
    assert not [b for b in shown.buttons if b.get("label") == "Session page"]  # website off: no link
    home = await turn_on(env)
    shown = await (await env.invoke("session show", {"session": session_id}, member=env.members[0])).final()
    links = [b["url"] for b in shown.buttons if b.get("label") == "Session page"]
    assert links == [f"{home}sessions/{session_id}/"]
    status, html = await fetch(links[0])
    assert status == 200
    assert "Thursday 5 November, 8:00 AM PT / 4:00 PM GMT / 9:30 PM IST" in text_of(html)
    await (
        await env.invoke("organize session announce", {"session": session_id}, member=env.organizer)
    ).final()
    posted = env.messages_in(env.announcements)[-1]
    assert [b["url"] for b in posted.buttons if b.get("label") == "Session page"] == links


async def test_calendar_link_and_reset(env: BotEnv) -> None:
    member = env.members[0]
    off = await (await env.invoke("calendar link", member=member)).response()
    assert off.ephemeral
    assert "website is off" in off.content
    await turn_on(env)
    mine = await add_session(env, "Mine", "2026-11-05 08:00")
    await add_session(env, "Not mine", "2026-11-12 08:00")
    await (await env.invoke("remind me", {"session": mine}, member=member)).final()
    first = await (await env.invoke("calendar link", member=member)).response()
    assert first.ephemeral
    url = URL.search(first.content)
    assert url is not None, first.content
    status, body = await fetch(url.group(1))
    assert status == 200
    summaries = [str(e["SUMMARY"]) for e in icalendar.Calendar.from_ical(body).walk("VEVENT")]
    assert summaries == ["Mine"]
    again = await (await env.invoke("calendar link", member=member)).response()
    assert "can't show it again" in again.content
    assert url.group(1) not in again.content
    other = await (await env.invoke("calendar link", member=env.members[1])).response()
    other_url = URL.search(other.content)
    assert other_url is not None
    assert other_url.group(1) != url.group(1)
    reset = await (await env.invoke("calendar reset", member=member)).response()
    new_url = URL.search(reset.content)
    assert new_url is not None
    assert "old address no longer works" in reset.content
    assert (await fetch(url.group(1)))[0] == 404
    assert (await fetch(new_url.group(1)))[0] == 200


async def test_the_bots_server_answers_etags_and_cache_control(env: BotEnv) -> None:
    """Through the bot's own web server: a session edited with /organize session edit shows at the next request,
    under a new ETag; the old one is answered with the new page, the current one with 304."""
    await configure(env)
    session_id = await add_session(env, "Building data recipes", "2026-11-05 08:00")
    home = await turn_on(env)
    async with aiohttp.ClientSession() as http:
        for path, cache in (
            ("", "public, max-age=60"),
            (f"sessions/{session_id}/", "public, max-age=60"),
            ("calendar.ics", "public, max-age=300"),
            ("feed.atom", "public, max-age=300"),
        ):
            async with http.get(home + path) as first:
                assert first.status == 200, path
                assert first.headers["Cache-Control"] == cache, path
                etag = first.headers["ETag"]
                assert etag.startswith('"'), path  # strong
            async with http.get(home + path, headers={"If-None-Match": etag}) as again:
                assert again.status == 304, path
                assert again.headers["Cache-Control"] == cache, path
        async with http.get(home) as first:
            etag = first.headers["ETag"]
        edit = {"session": session_id, "title": "Data recipes, retitled"}
        await (await env.invoke("organize session edit", edit, member=env.organizer)).final()
        async with http.get(home, headers={"If-None-Match": etag}) as changed:
            assert changed.status == 200
            assert changed.headers["ETag"] != etag
            assert "Data recipes, retitled" in await changed.text()


async def test_paper_show_links_the_papers_page(env: BotEnv) -> None:
    """/paper show carries a Club page button once the website is on; the page it opens is the paper's."""
    await configure(env)
    await add_session(env, "Terminal agents", "2026-11-05 08:00", papers="TMax <b>@everyone</b>\nT1")
    before = await (await env.invoke("paper show", {"paper": "T1"}, member=env.member)).final()
    assert all(b.get("label") != "Club page" for b in before.buttons)
    home = await turn_on(env)
    shown = await (await env.invoke("paper show", {"paper": "T1"}, member=env.member)).final()
    (button,) = [b for b in shown.buttons if b.get("label") == "Club page"]
    assert re.fullmatch(re.escape(home) + r"papers/\d+/", button["url"])
    status, html = await fetch(button["url"])
    assert status == 200
    assert_nothing_runs(html)
    text = text_of(html)
    assert "T1" in text
    assert "with TMax <b>@everyone</b>" in text  # no roles given: read together, no pairing invented
    assert "against" not in text
