"""The papers' actions for the cog and the CLI: a card, a refresh, a name resolved, a guild's names walked."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.background import Background
from bot.errors import Conflict
from bot.services.papers import queries
from bot.services.papers.enrich import ENRICH_JOB, ask_again, enrich_due
from bot.services.papers.resolve import AUTO_MIN, AUTO_NEXT_MAX, Choice, Found, find_candidates
from bot.services.papers.store import AliasInfo, choose, find_alias, unresolved_papers
from bot.sources.clients import SourceClients

PageOf = Callable[[AsyncSession, int], Awaitable[str | None]]  # a paper's club page (None: no site)


class Host(Protocol):
    """What the flows use of the bot (bot/client.py's PaperclubBot): the store, the sources, the jobs."""

    session_factory: async_sessionmaker[AsyncSession]
    background: Background

    @property
    def sources(self) -> SourceClients:
        """The paper sources' clients."""


async def enrich(host: Host, now: datetime) -> dict[int, tuple[int, ...]]:
    """The enrichment job's run: the papers due asked of the sources; the changed ids, per guild."""
    return await enrich_due(host.sources, host.session_factory, now)


async def show(host: Host, guild_id: int, text: str, page_of: PageOf) -> tuple[queries.PaperCard, str | None]:
    """/paper show: the card of the paper a member typed or picked, and its club page."""
    async with host.session_factory() as session:
        card = await queries.card_of(session, guild_id, await queries.find_paper_for(session, guild_id, text))
        return card, await page_of(session, card.paper.id)


async def refresh(host: Host, guild_id: int, text: str) -> str:
    """/organize paper refresh: every source asked about the paper afresh, now; its title."""
    async with host.session_factory() as session, session.begin():
        row = await queries.find_paper_for(session, guild_id, text)
        ask_again(row)
        title = row.title
    await host.background.due_now(ENRICH_JOB)
    return title


async def look_up(
    host: Host, guild_id: int, name: str, *, max_wait: float, deadline: float
) -> tuple[AliasInfo | None, Found | None]:
    """What a title-only name means: its alias, else (None) the sources' candidates too (none stored)."""
    async with host.session_factory() as session:
        alias = await find_alias(session, guild_id, name)
    if alias is not None and not alias.rejected:
        return alias, None
    return alias, await find_candidates(host.sources, name, max_wait=max_wait, deadline=deadline)


async def pick(
    host: Host, guild_id: int, name: str, choice: Choice | None, *, chosen_by: int, now: datetime
) -> AliasInfo:
    """The organizer's pick for a name (None: none of these), stored; the paper's sources asked now."""
    try:
        async with host.session_factory() as session, session.begin():
            alias = await choose(session, guild_id, name, choice, chosen_by=chosen_by, now=now)
    except IntegrityError:  # another organizer resolved the same name at the same moment
        raise Conflict(
            "Another organizer resolved this name at the same moment: `/organize paper resolve` shows what it means now."
        ) from None
    if choice is not None:
        await host.background.due_now(ENRICH_JOB)
    return alias


Ask = Callable[[str], Awaitable[str | None]]  # a prompt in, the line typed out (None: end of input)
Say = Callable[[str], None]


@dataclass
class WalkReport:
    """What a walk did: names resolved, marked none of these, and skipped (each with its reason)."""

    resolved: list[tuple[str, str]] = field(default_factory=list)  # (name, the paper's title)
    rejected: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, why)


def _why_not(found: Found) -> str:
    if not found.candidates:
        return "no candidates"
    best = found.candidates[0]
    if best.score < AUTO_MIN:
        return f"best match {best.score:.2f} < {AUTO_MIN} ({best.title!r})"
    return f"ambiguous: next match {found.candidates[1].score:.2f} > {AUTO_NEXT_MAX} ({found.candidates[1].title!r})"


async def _ask_pick(found: Found, ask: Ask, say: Say) -> Choice | None | str:
    """The organizer's answer: a Choice, None (none of these), "skip" or "quit"."""
    for number, choice in enumerate(found.candidates, 1):
        authors = ", ".join(choice.authors[:3]) + (" et al." if len(choice.authors) > 3 else "")
        facts = " · ".join(
            p for p in (authors, str(choice.year or ""), choice.venue or "", choice.reference or "") if p
        )
        say(
            f"  {number}. {choice.title}\n     {facts} (found by {', '.join(choice.sources)}; match {choice.score:.2f})"
        )
    count = len(found.candidates)
    while True:
        line = await ask(f"  pick 1-{count}, n = none of these, s = skip, q = quit: ")
        if line is None:
            return "quit"
        answer = line.strip().lower()
        if answer in ("q", "quit"):
            return "quit"
        if answer in ("", "s", "skip"):
            return "skip"
        if answer in ("n", "none"):
            return None
        if answer.isdigit() and 1 <= int(answer) <= count:
            return found.candidates[int(answer) - 1]
        say(f"  '{line.strip()[:40]}' is not one of 1-{count}, n, s or q")


async def walk(
    session_factory: async_sessionmaker[AsyncSession],
    clients: SourceClients,
    guild_id: int,
    *,
    auto: bool,
    ask: Ask,
    say: Say,
    now: Callable[[], datetime],
) -> WalkReport:
    """Offer each unresolved paper's candidates (or, with ``auto``, take only unambiguous ones)."""
    report = WalkReport()
    async with session_factory() as session:
        pending = await unresolved_papers(session, guild_id)
    say(f"{len(pending)} unresolved papers in server {guild_id}")
    for index, title in enumerate(pending, 1):
        found = await find_candidates(clients, title)
        down = f" (not asked: {', '.join(found.unavailable)})" if found.unavailable else ""
        say(f"[{index}/{len(pending)}] {title!r}{down}")
        if auto:
            if (best := found.unambiguous) is None:
                reason = _why_not(found)
                report.skipped.append((title, reason))
                say(f"  skipped: {reason}")
                continue
            pick: Choice | None | str = best
        elif not found.candidates:
            report.skipped.append((title, "no candidates"))
            say("  skipped: no source knows this name")
            continue
        else:
            pick = await _ask_pick(found, ask, say)
        if pick == "quit":
            say("  stopped; the picks so far are kept")
            break
        if pick == "skip":
            report.skipped.append((title, "skipped"))
            continue
        choice = pick if isinstance(pick, Choice) else None
        async with session_factory() as session, session.begin():
            alias = await choose(session, guild_id, title, choice, chosen_by=None, now=now())
        if choice is None:
            report.rejected.append(title)
            say("  marked none of these")
        else:
            report.resolved.append((title, alias.paper_title or choice.title))
            say(
                f"  resolved: {choice.title!r} ({choice.reference or 'Semantic Scholar ' + str(choice.s2_id)})"
            )
    say(
        f"{len(report.resolved)} resolved, {len(report.rejected)} marked none of these, {len(report.skipped)} skipped"
    )
    return report
