"""A page per paper (``/<slug>/papers/<id>/``) on SQLite and PostgreSQL: the card /paper show gives, with
hostile source text escaped (a TLDR with ``<script>`` and ``@everyone``, a breakout in the title and the
venue), the club's history (sessions and what the paper was read against, suggestions counted without a
member's id, never a declined one, the lists), linked from the home, session, list and search pages, a
paper of another guild a 404, and in the static build; then the same in real Chromium."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer
from sqlalchemy import select

from bot.services.site.web import build_site
from db.models import Paper, SessionPaper
from db.models.reading import ReadingListItem
from db.models.suggestions import Suggestion, SuggestionVolunteer
from tests.site.conftest import GUILD, OTHER_GUILD, Club, import_club, site_app
from tests.site.helpers import assert_nothing_runs, text_of
from tests.site.test_browser import ARTIFACTS, CHROMIUM
from tests.site.test_security import BREAKOUT, SCRIPT

TLDR = f"{SCRIPT} @everyone reads **this** {BREAKOUT}"
TITLE = f"TMax {SCRIPT}"
S2_PAGE = "https://www.semanticscholar.org/paper/abc?utm_source=api"
SUBMITTER, VOLUNTEER, DECLINED = 876543218765432187, 987654321987654321, 765432187654321876


async def seed_card(club: Club) -> dict[str, int]:
    """TMax with every source field (hostile text in the title, TLDR and venue), suggested by one member
    with a volunteer, declined for another; on a reading list."""
    at = datetime(2026, 10, 1, tzinfo=UTC).isoformat()
    async with club.session_factory() as session, session.begin():
        tmax = await session.scalar(select(Paper).where(Paper.guild_id == GUILD, Paper.title == "TMax"))
        world = await session.scalar(
            select(Paper).where(Paper.guild_id == GUILD, Paper.title == "Terminal-World")
        )
        assert tmax is not None
        assert world is not None
        tmax.title = TITLE
        tmax.authors = "Hamish Ivison, Ada Lovelace"
        tmax.tldr = TLDR
        tmax.year = 2026
        tmax.venue = f"ICLR 2026 {BREAKOUT}"
        tmax.decision = "Oral"
        tmax.citation_count = 42
        tmax.influential_citation_count = 7
        tmax.code_url = "https://github.com/example/tmax"
        tmax.hf_url = "https://huggingface.co/papers/2401.12345"
        tmax.hf_models, tmax.hf_datasets, tmax.hf_upvotes = 2, 1, 41
        tmax.hf_top = ["example/tmax-7b", "datasets/example/tasks", "<script>/x", "javascript:alert(1)"]
        tmax.openreview_url = "javascript:window.__pwned=1"  # never a link
        tmax.s2_url = S2_PAGE
        tmax.field_sources = {"tldr": ["semantic_scholar", at]}
        good = Suggestion(guild_id=GUILD, paper_id=tmax.id, submitter_id=SUBMITTER, status="open")
        bad = Suggestion(guild_id=GUILD, paper_id=tmax.id, submitter_id=DECLINED, status="declined")
        session.add_all([good, bad])
        await session.flush()
        session.add(SuggestionVolunteer(suggestion_id=good.id, user_id=VOLUNTEER))
        session.add(SuggestionVolunteer(suggestion_id=bad.id, user_id=DECLINED))
        item = await session.scalar(select(ReadingListItem).limit(1))
        assert item is not None
        listed = await session.scalar(
            select(ReadingListItem).where(
                ReadingListItem.list_id == item.list_id, ReadingListItem.paper_id == tmax.id
            )
        )
        if listed is None:
            session.add(ReadingListItem(list_id=item.list_id, paper_id=tmax.id, position=99))
        return {"tmax": tmax.id, "world": world.id, "list": item.list_id}


async def test_paper_page_shows_the_card_escaped(client: TestClient, club: Club) -> None:
    ids = await seed_card(club)
    answer = await client.get(f"/paper-club/papers/{ids['tmax']}/")
    assert answer.status == 200
    html = await answer.text()
    assert SCRIPT not in html
    assert BREAKOUT not in html
    tags = assert_nothing_runs(html)
    text = text_of(html)
    assert TITLE in text  # shown as typed, as text
    assert f"TLDR: {TLDR}" in text
    assert "2026 · ICLR 2026" in text
    assert "42 citations (7 influential) · 2 models · 1 data set · 41 upvotes on Hugging Face" in text
    assert (
        "Models: example/tmax-7b · Data sets: example/tasks" in text
    )  # a path not of the Hub's form: left out
    assert "read against Terminal-World and T1" in text
    assert "Suggested by 1 member; 1 offered to present it." in text
    assert str(SUBMITTER) not in html
    assert str(VOLUNTEER) not in html
    assert str(DECLINED) not in html
    hrefs = [attrs.get("href") for tag, attrs in tags.tags if tag == "a"]
    assert "https://github.com/example/tmax" in hrefs
    assert "https://huggingface.co/papers/2401.12345" in hrefs
    assert "https://huggingface.co/example/tmax-7b" in hrefs
    assert "https://huggingface.co/datasets/example/tasks" in hrefs
    assert S2_PAGE in hrefs  # Semantic Scholar's attribution, a link back
    assert not any("javascript" in (h or "") for h in hrefs)
    assert f"../../papers/{ids['world']}/" in hrefs
    assert f"../../lists/{ids['list']}/" in hrefs
    assert any((h or "").startswith("../../sessions/") for h in hrefs)


async def test_paper_pages_are_linked_and_guild_scoped(client: TestClient, club: Club) -> None:
    ids = await seed_card(club)
    link = f"papers/{ids['tmax']}/"
    home = await (await client.get("/paper-club/")).text()
    assert f'href="./{link}"' in home
    async with club.session_factory() as session:
        session_id = await session.scalar(
            select(SessionPaper.session_id).where(SessionPaper.paper_id == ids["tmax"]).limit(1)
        )
    shown = await (await client.get(f"/paper-club/sessions/{session_id}/")).text()
    assert f'href="../../{link}"' in shown
    listed = await (await client.get(f"/paper-club/lists/{ids['list']}/")).text()
    assert f'href="../../{link}"' in listed
    found = await (await client.get("/paper-club/search", params={"q": "TMax"})).text()
    assert f'href="./{link}"' in found
    assert (await client.get("/paper-club/papers/99999999/")).status == 404
    await import_club(club.session_factory, OTHER_GUILD)
    async with club.session_factory() as session:
        other = await session.scalar(select(Paper.id).where(Paper.guild_id == OTHER_GUILD).limit(1))
    assert (await client.get(f"/paper-club/papers/{other}/")).status == 404


async def test_static_build_holds_the_paper_pages(club: Club, tmp_path: Path) -> None:
    ids = await seed_card(club)
    report = await build_site(club.session_factory, GUILD, tmp_path, now=club.clock.now())
    page = tmp_path / "papers" / str(ids["tmax"]) / "index.html"
    html = page.read_text(encoding="utf-8")
    assert SCRIPT not in html
    assert TITLE in text_of(html)
    assert_nothing_runs(html)
    async with club.session_factory() as session:
        count = len(list(await session.scalars(select(Paper.id).where(Paper.guild_id == GUILD))))
    assert len(list((tmp_path / "papers").iterdir())) == count
    assert report.files > count
    assert f'href="../../papers/{ids["world"]}/"' in html


@pytest.mark.sqlite_only
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed (/usr/bin/chromium)")
async def test_paper_page_in_chromium(club: Club) -> None:
    from playwright.async_api import async_playwright

    ids = await seed_card(club)
    server = TestServer(site_app(club), host="127.0.0.1")
    await server.start_server()
    dialogs: list[str] = []
    try:
        root = str(server.make_url("/paper-club/"))
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(CHROMIUM),
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
            )
            try:
                page = await (await browser.new_context(locale="en-GB")).new_page()
                page.on("dialog", lambda dialog: dialogs.append(dialog.message))
                await page.goto(root)
                await page.locator(f'a.paper[href="./papers/{ids["tmax"]}/"]').first.click()
                await page.wait_for_url(f"**/papers/{ids['tmax']}/")
                assert await page.locator("h1").inner_text() == TITLE
                assert await page.locator(".tldr").inner_text() == f"TLDR: {TLDR}"
                assert "ICLR 2026" in await page.locator(".venue").inner_text()
                assert await page.evaluate("typeof window.__pwned") == "undefined"
                assert await page.locator("img").count() == 0
                ARTIFACTS.mkdir(exist_ok=True)
                await page.screenshot(path=str(ARTIFACTS / "site-paper.png"), full_page=True)
                await page.get_by_role("link", name="Terminal-World").click()
                await page.wait_for_url(f"**/papers/{ids['world']}/")
                assert await page.locator("h1").inner_text() == "Terminal-World"
                assert "read against" in await page.locator(".read-in").inner_text()
                await page.locator(".read-in a").first.click()
                await page.wait_for_url("**/sessions/*/")
                assert await page.evaluate("typeof window.__pwned") == "undefined"
            finally:
                await browser.close()
    finally:
        await server.close()
    assert dialogs == []
