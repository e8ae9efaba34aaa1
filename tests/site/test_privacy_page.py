"""The club site's privacy page (``/<slug>/privacy/``): every kind of the one list (what, why, how long, how
deleted), the deployment's grace period, linked from every page's footer, served and built as a file, read
in Chromium at a phone's width."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.services.privacy.kinds import KINDS
from bot.services.site.web import build_site, site_routes
from tests.site.conftest import GUILD, PUBLIC, Club
from tests.site.helpers import assert_nothing_runs, text_of

CHROMIUM = Path("/usr/bin/chromium")


async def test_the_page_says_every_kind(client: TestClient) -> None:
    answer = await client.get("/paper-club/privacy/")
    assert answer.status == 200
    assert "Content-Security-Policy" in answer.headers
    html = await answer.text()
    assert_nothing_runs(html)
    text = text_of(html.split("<main")[1])
    for kind in KINDS:
        said = kind.said(30)
        assert f" {said.name} " in f" {text} ", kind.name
        assert text_of(said.what.replace("*", "").replace("`", "")) in text, kind.name
    assert "deleted in full 30 days after the bot is removed" in text
    assert "<em>Suggest this paper</em>" in html  # the list's Markdown, as HTML
    assert "<code>/privacy</code>" in html
    assert '<meta property="og:url" content="https://club.example.org/paper-club/privacy/">' in html
    assert (await client.get("/paper-club/privacy")).status == 404  # one address: with its slash


async def test_the_grace_period_is_the_deployments(club: Club) -> None:
    app = web.Application()
    app.add_routes(site_routes(club.session_factory, club.clock, lambda: PUBLIC, grace_days=7))
    async with TestClient(TestServer(app)) as http:
        html = await (await http.get("/paper-club/privacy/")).text()
    assert "deleted in full 7 days after the bot is removed" in text_of(html)


async def test_every_footer_links_it(client: TestClient) -> None:
    for path, link in (
        ("/paper-club/", "./privacy/"),
        ("/paper-club/sessions/1/", "../../privacy/"),
        ("/paper-club/past/", "../privacy/"),
        ("/paper-club/search?q=tmax", "./privacy/"),
        ("/paper-club/privacy/", "../privacy/"),
    ):
        html = await (await client.get(path)).text()
        footer = html.split('<footer class="site">')[1]
        assert f'<a href="{link}">Privacy</a>' in footer, path


async def test_the_static_build_writes_it(club: Club, tmp_path: Path) -> None:
    report = await build_site(club.session_factory, GUILD, tmp_path, now=club.clock.now(), grace_days=14)
    page = (tmp_path / "privacy" / "index.html").read_text(encoding="utf-8")
    assert "deleted in full 14 days after the bot is removed" in text_of(page)
    assert '<a href="../privacy/">Privacy</a>' in page
    assert report.files >= 1


@pytest.fixture
async def served(club: Club) -> AsyncIterator[str]:
    from tests.site.conftest import site_app

    server = TestServer(site_app(club), host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("/paper-club/"))
    finally:
        await server.close()


@pytest.mark.sqlite_only
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed (/usr/bin/chromium)")
async def test_from_the_footer_in_chromium_at_a_phones_width(served: str) -> None:
    from playwright.async_api import async_playwright

    from tests.site.test_browser import OVERFLOW

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            context = await browser.new_context(viewport={"width": 390, "height": 900})
            page = await context.new_page()
            await page.goto(served)
            await page.locator("footer").get_by_role("link", name="Privacy").click()
            await page.wait_for_url("**/privacy/")
            assert await page.locator("h1").inner_text() == "Privacy"
            assert await page.locator("h2").all_inner_texts() == [
                "About you",
                "The club's",
                "Records of the bot's work",
            ]
            assert await page.locator("h3").all_inner_texts() == [kind.name for kind in KINDS]
            assert await page.evaluate(OVERFLOW) == [0, []]
        finally:
            await browser.close()
