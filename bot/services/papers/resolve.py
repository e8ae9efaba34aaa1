"""Title-only names ("TMax", a title): the sources' candidates, merged and scored (:func:`find_candidates`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, replace

from rapidfuzz import fuzz

from bot.papers import normalize_title
from bot.sources.clients import SourceClients
from bot.sources.http import Candidate, SourceUnavailable

log = logging.getLogger("paperclub.papers")

OFFERED = 3  # candidates offered to the organizer
PER_SOURCE = 5  # results asked of each search
MIN_SCORE = 0.3  # below this a result is not offered at all
AUTO_MIN = 0.9
AUTO_NEXT_MAX = 0.6


@dataclass(frozen=True)
class Choice:
    """One paper a name may mean, merged over the sources that found it (text untrusted: escape it)."""

    title: str
    authors: tuple[str, ...]
    year: int | None
    venue: str | None
    arxiv_id: str | None
    doi: str | None
    s2_id: str | None
    url: str | None
    sources: tuple[str, ...]
    score: float

    @property
    def reference(self) -> str | None:
        """The id the paper is stored under: ``arXiv:…``, ``doi:…``, or None (only Semantic Scholar's id)."""
        if self.arxiv_id:
            return f"arXiv:{self.arxiv_id}"
        return f"doi:{self.doi}" if self.doi else None


@dataclass(frozen=True)
class Found:
    """What the sources offered for a name, best first, and the sources that could not be asked."""

    name: str
    candidates: tuple[Choice, ...]
    unavailable: tuple[str, ...]

    @property
    def unambiguous(self) -> Choice | None:
        """The one candidate ``--auto`` may take (see :func:`is_unambiguous`), or None."""
        return self.candidates[0] if is_unambiguous(self.candidates) else None


def similarity(name: str, title: str) -> float:
    """How well ``name`` names ``title``, 0–1 (rapidfuzz; halved for a digit word the title lacks: T1 vs T2)."""
    n, t = normalize_title(name), normalize_title(title)
    if not n or not t:
        return 0.0
    head = normalize_title(title.split(":", 1)[0]) if ":" in title else t
    pairs = [(n, t), (n, head)]
    pairs += [(a.replace(" ", ""), b.replace(" ", "")) for a, b in pairs]  # spaces in or out
    score = max(fuzz.ratio(a, b) for a, b in pairs if a and b) / 100
    if not {w for w in n.split() if any(c.isdigit() for c in w)} <= set(t.split()):
        score /= 2
    return round(score, 4)


def is_unambiguous(candidates: Sequence[Choice]) -> bool:
    """One candidate scoring at least AUTO_MIN and the next (if any) at most AUTO_NEXT_MAX."""
    if not candidates or candidates[0].score < AUTO_MIN:
        return False
    return len(candidates) < 2 or candidates[1].score <= AUTO_NEXT_MAX


def _same_paper(a: Choice, b: Candidate) -> bool:
    if a.arxiv_id and b.arxiv_id:
        return a.arxiv_id.lower() == b.arxiv_id.lower()
    if a.doi and b.doi:
        return a.doi.lower() == b.doi.lower()
    return normalize_title(a.title) == normalize_title(b.title)


def _choice(found: Candidate, score: float, into: Choice | None = None) -> Choice:
    """``found`` as a Choice, or folded ``into`` one already found (its own values first)."""
    new = Choice(
        title=found.title,
        authors=found.authors,
        year=found.year,
        venue=found.venue,
        arxiv_id=found.arxiv_id,
        doi=found.doi,
        s2_id=found.source_id if found.source == "semantic_scholar" else None,
        url=found.url,
        sources=(found.source,),
        score=score,
    )
    if into is None:
        return new
    kept = ("authors", "year", "venue", "arxiv_id", "doi", "s2_id", "url")
    return replace(
        into,
        **{name: getattr(into, name) or getattr(new, name) for name in kept},
        sources=into.sources + new.sources if found.source not in into.sources else into.sources,
        score=max(into.score, score),
    )


def rank(name: str, found: Sequence[Candidate], limit: int = OFFERED) -> tuple[Choice, ...]:
    """The sources' answers merged per paper (arXiv id, DOI, then title), scored, best ``limit`` first."""
    merged: list[Choice] = []
    for candidate in found:
        score = similarity(name, candidate.title)
        for i, choice in enumerate(merged):
            if _same_paper(choice, candidate):
                merged[i] = _choice(candidate, score, into=choice)
                break
        else:
            merged.append(_choice(candidate, score))
    kept = [c for c in merged if c.score >= MIN_SCORE]
    order = {id(c): i for i, c in enumerate(kept)}
    kept.sort(key=lambda c: (-c.score, -len(c.sources), order[id(c)]))
    return tuple(kept[:limit])


async def find_candidates(
    clients: SourceClients, name: str, *, max_wait: float | None = None, deadline: float | None = None
) -> Found:
    """Ask every source turned on for ``name`` and rank the answers; one past ``deadline`` s is unavailable."""

    async def within(search: Awaitable[list[Candidate]]) -> list[Candidate]:
        try:
            async with asyncio.timeout(deadline):
                return await search
        except TimeoutError:
            raise SourceUnavailable("search", f"no answer within {deadline:g} s") from None

    searches: dict[str, Awaitable[list[Candidate]]] = {}
    if (s2 := clients.semantic_scholar) is not None:

        async def scholar() -> list[Candidate]:
            best = await s2.match_title(name, max_wait=max_wait)
            return ([best] if best else []) + await s2.search(name, PER_SOURCE, max_wait=max_wait)

        searches["semantic_scholar"] = scholar()
    if clients.huggingface is not None:
        searches["huggingface"] = clients.huggingface.search(name, PER_SOURCE, max_wait=max_wait)
    if clients.search_arxiv:
        searches["arxiv"] = clients.arxiv.search_titles(name, PER_SOURCE, max_wait=max_wait)
    answers = await asyncio.gather(*map(within, searches.values()), return_exceptions=True)
    found: list[Candidate] = []
    unavailable: list[str] = []
    for source, answer in zip(searches, answers, strict=True):
        if isinstance(answer, SourceUnavailable):
            log.info("title search: %s", answer)  # not the name: someone typed it
            unavailable.append(source)
        elif isinstance(answer, BaseException):
            raise answer
        else:
            found.extend(answer)
    return Found(name, rank(name, found), tuple(unavailable))
