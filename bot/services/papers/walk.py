"""``paperclub papers resolve``: a guild's unresolved (title-only) papers walked in a terminal."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.services.papers.aliases import choose, unresolved_papers
from bot.services.papers.resolve import AUTO_MIN, AUTO_NEXT_MAX, Choice, Found, find_candidates
from bot.sources.clients import SourceClients

Ask = Callable[[str], Awaitable[str | None]]  # a prompt in, the line typed out (None: end of input)
Say = Callable[[str], None]


@dataclass
class WalkReport:
    """What a walk did: names resolved, marked none of these, and skipped (each with its reason)."""

    resolved: list[tuple[str, str]] = field(default_factory=list)  # (name, the paper's title)
    rejected: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (name, why)

    def summary(self) -> str:
        """One line: how many of each."""
        return (
            f"{len(self.resolved)} resolved, {len(self.rejected)} marked none of these, "
            f"{len(self.skipped)} skipped"
        )


def describe(number: int, choice: Choice) -> str:
    """One candidate as a terminal line: title, authors, year, venue, ids, sources and score."""
    authors = ", ".join(choice.authors[:3]) + (" et al." if len(choice.authors) > 3 else "")
    facts = " · ".join(
        p for p in (authors, str(choice.year or ""), choice.venue or "", choice.reference or "") if p
    )
    return f"  {number}. {choice.title}\n     {facts} (found by {', '.join(choice.sources)}; match {choice.score:.2f})"


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
        say(describe(number, choice))
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
    for index, paper in enumerate(pending, 1):
        found = await find_candidates(clients, paper.title)
        down = f" (not asked: {', '.join(found.unavailable)})" if found.unavailable else ""
        say(f"[{index}/{len(pending)}] {paper.title!r}{down}")
        if auto:
            if (best := found.unambiguous) is None:
                reason = _why_not(found)
                report.skipped.append((paper.title, reason))
                say(f"  skipped: {reason}")
                continue
            pick: Choice | None | str = best
        elif not found.candidates:
            report.skipped.append((paper.title, "no candidates"))
            say("  skipped: no source knows this name")
            continue
        else:
            pick = await _ask_pick(found, ask, say)
        if pick == "quit":
            say("  stopped; the picks so far are kept")
            break
        if pick == "skip":
            report.skipped.append((paper.title, "skipped"))
            continue
        choice = pick if isinstance(pick, Choice) else None
        async with session_factory() as session, session.begin():
            alias = await choose(session, guild_id, paper.title, choice, chosen_by=None, now=now())
        if choice is None:
            report.rejected.append(paper.title)
            say("  marked none of these")
        else:
            report.resolved.append((paper.title, alias.paper_title or choice.title))
            say(
                f"  resolved: {choice.title!r} ({choice.reference or 'Semantic Scholar ' + str(choice.s2_id)})"
            )
    say(report.summary())
    return report
