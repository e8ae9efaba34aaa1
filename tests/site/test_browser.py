"""The website in a real browser: Debian's Chromium driven by Playwright (no browser download; CI installs
the chromium package). The club's programme (examples/club.yaml) is imported, with hostile text added
where the pages show member text; the home page must read as the club page, a session link must lead to
its page, our own script must run (the reader's own time) and no script from page content may.

The home page is read at 1280 and 390 pixels, light and dark (nothing may overflow sideways); its
screenshots are kept at test-artifacts/site-home-<width>-<scheme>.png (git-ignored), beside the session
page's (test-artifacts/site-session.png)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from sqlalchemy import select

from db.models import ClubSession, Paper
from db.models.reading import ReadingListItem
from tests.site.conftest import CLUB_NOV5, CLUB_NOV19, GUILD, Club
from tests.site.test_security import BREAKOUT, SCRIPT

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed (/usr/bin/chromium): apt-get install -y chromium",
)

NEXT = [
    f"{CLUB_NOV5} — Building data recipes for terminal agents. Hamish Ivison presents TMax, read against "
    "Terminal-World and T1: where tasks come from, how they are checked, what the reward sees, and SFT versus RL. "
    "Sign up.",
    f"{CLUB_NOV19} — User models and user simulators. Persimmon and Turing-RL on training simulated users to be "
    "indistinguishable from real ones, at 550B and at 8B. Sign up.",
]
READ = [  # the club page's "Reading so far", word for word
    "16 October — Sandbox infrastructure for environments at scale. DSec, the sandbox platform behind DeepSeek’s RL: "
    "what you need underneath before environment creation can scale.",
    "24 September — Autoscaled environments and the Sim2Real gap. DeepSeek-V4.1-Flash on autoscaled task and "
    "environment synthesis, paired with Mind the Sim2Real Gap on whether simulated users behave like real ones.",
    "17 June — Generating effective learning environments. AI-GAs, Agent Psychometrics and Universal Verifier: what "
    "makes a good learning environment, and how to tell training is working.",
    "9 June — Multi-turn tool-use benchmarks. VitaBench and WildToolBench, newer multi-turn benchmarks seeded from "
    "real user data as Tau2-Bench nears saturation.",
    "19 May — Verifiers and trustworthy evals. SWE-Bench Verified, OSWorld-Verified, ComputerRL and BenchGuard on "
    "why agent benchmarks mis-score correct agents and how to repair the reward signal.",
    "5 May — Gym-Anything: autoscaling CUA. Gym-Anything and its CUA-World: 10K+ autoscaled computer-use tasks "
    "across 200 applications, and why scaling needs rigorous QA.",
    "22 April — Failure-driven task mining. TRACE on mining tasks from the capabilities a model actually lacks, and "
    "RIFT on how LLM-judge rubrics fail and how to catch it.",
    "7 April — Tool-graph environment synthesis. Tau-Bench, Tau2-Bench and EnterpriseOps-Gym against AutoForge and "
    "ScaleEnv: hand-built enterprise tool-use environments versus fully synthetic tool-graph pipelines.",
    "17 March — Priorities in LLM-generated environments. AgentScaler, AutoEnv and OMNI on generating environments, "
    "tasks and reward logic with LLMs, and choosing which generated tasks are worth training on.",
    "5 March — World models: high-fidelity enterprise environments. Tau2-Bench and EnterpriseBench Corecraft are "
    "bottlenecked on human data operations, and LLM-generated environments like Agent World Model and AutoEnv are "
    "still simpler.",
    "27 February — World models for agents. APEX-Agents, EnterpriseBench Corecraft and Agent World Model: human-built "
    "enterprise worlds against LLM-built ones, and what it takes to automate environment and task creation.",
    "13 February — SAGE: hierarchical exploration for web agents. SAGE on web agents that train on a self-generated "
    "easy-to-hard curriculum, and whether LLM judges can verify the result.",
    "11 February — OS-Genesis: reverse task synthesis. OS-Genesis on starting from what the agent did and working "
    "backwards to the task.",
]
HOSTILE = f"Hostile {SCRIPT} {BREAKOUT}"


async def _add_hostile_content(club: Club) -> None:
    """Hostile text where members type: an old session's title and description (last in Reading so far), a
    list note, a paper's title (TMax, as a source might retitle it: its head still what the club calls it)."""
    async with club.session_factory() as session, session.begin():
        session.add(
            ClubSession(
                guild_id=GUILD,
                title=HOSTILE,
                description=HOSTILE,
                presenter_name=HOSTILE,
                starts_at=datetime(2026, 1, 8, 17, 30, tzinfo=UTC),
                duration_minutes=60,
                timezone="America/Los_Angeles",
            )
        )
        item = await session.scalar(select(ReadingListItem).limit(1))
        assert item is not None
        item.note = HOSTILE
        paper = await session.scalar(select(Paper).where(Paper.title == "TMax"))
        assert paper is not None
        paper.title = f"TMax: {SCRIPT}"


@pytest.fixture
async def served(club: Club) -> AsyncIterator[str]:
    from tests.site.conftest import site_app

    await _add_hostile_content(club)
    server = TestServer(site_app(club), host="127.0.0.1")
    await server.start_server()
    try:
        yield str(server.make_url("/paper-club/"))
    finally:
        await server.close()


#: Anything wider than the viewport (the page's own scroll width, or any element's right edge).
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > width + 0.5);
  return [document.documentElement.scrollWidth - width, wide.map(e => e.tagName + "." + e.className).slice(0, 5)];
}"""


@pytest.mark.sqlite_only
async def test_home_and_session_page_in_chromium(served: str) -> None:
    from playwright.async_api import async_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    dialogs: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            backgrounds = {}
            for width, scheme in ((1280, "light"), (390, "light"), (1280, "dark"), (390, "dark")):
                context = await browser.new_context(
                    viewport={"width": width, "height": 900}, color_scheme=scheme, locale="en-GB"
                )
                page = await context.new_page()
                answer = await page.goto(served)
                assert answer is not None
                assert answer.status == 200
                assert await page.evaluate(OVERFLOW) == [0, []], (width, scheme)
                backgrounds[scheme] = await page.evaluate("getComputedStyle(document.body).backgroundColor")
                await page.screenshot(path=str(ARTIFACTS / f"site-home-{width}-{scheme}.png"), full_page=True)
                await context.close()
            assert backgrounds["light"] != backgrounds["dark"]  # prefers-color-scheme is followed

            context = await browser.new_context(timezone_id="Europe/Berlin", locale="en-GB")
            page = await context.new_page()
            page.on("dialog", lambda dialog: dialogs.append(dialog.message))
            await page.goto(served)
            next_up = page.locator("section[aria-labelledby=next] li.next-up")
            assert await next_up.locator(".kicker").inner_text() == "NEXT UP"  # styled upper case
            next_lines = await page.locator("section[aria-labelledby=next] p.line").all_inner_texts()
            assert [" ".join(t.split()) for t in next_lines] == NEXT
            assert " ".join((await next_up.locator("p.line").inner_text()).split()) == NEXT[0]
            read_lines = await page.locator("section[aria-labelledby=read] p.line").all_inner_texts()
            read = [" ".join(t.split()) for t in read_lines]
            assert read[: len(READ)] == READ
            assert read[len(READ)] == f"8 January — {HOSTILE}. {HOSTILE}"  # shown as text, nothing ran
            assert HOSTILE in await page.locator("body").inner_text()

            await page.get_by_role("link", name="Building data recipes for terminal agents.").click()
            await page.wait_for_url("**/sessions/*/")
            assert await page.locator("h1").inner_text() == "Building data recipes for terminal agents"
            assert CLUB_NOV5 in await page.locator(".when").inner_text()
            lead = page.locator("p.lead")
            assert (await lead.inner_text()).startswith(
                "Hamish Ivison presents TMax, read against Terminal-World"
            )
            hrefs = await lead.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
            assert len(hrefs) == 3  # each paper once, linked to its page
            assert all(h.startswith("../../papers/") for h in hrefs)
            event = json.loads(await page.locator("script[type='application/ld+json']").text_content() or "")
            assert datetime.fromisoformat(event["startDate"]) == datetime(2026, 11, 5, 16, 0, tzinfo=UTC)
            local = page.locator(".local-time")
            await local.wait_for(state="visible")  # our own script ran, under the CSP
            assert await local.inner_text() == "Your time (Europe/Berlin): Thursday 5 November, 5:00 PM GMT+1"
            await page.screenshot(path=str(ARTIFACTS / "site-session.png"), full_page=True)
            await lead.get_by_role("link", name="TMax").click()
            await page.wait_for_url("**/papers/*/")
            assert await page.locator("h1").inner_text() == f"TMax: {SCRIPT}"  # the title, as text

            for target in (served, served + "past/", served + "search?q=hostile"):
                await page.goto(target)
                assert await page.evaluate("typeof window.__pwned") == "undefined", target
            assert dialogs == []
        finally:
            await browser.close()
