"""A session in the club page's words, each thing said once, its papers linked at their first mention."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

CLAIM = "I'll present"


class Named(Protocol):
    """A paper as a sentence names it."""

    @property
    def title(self) -> str:
        """The paper's title."""

    @property
    def id(self) -> int | None:
        """Its page's id (papers/<id>/)."""

    @property
    def against(self) -> bool:
        """Read against the session's main papers, as the club said."""


@dataclass(frozen=True)
class Piece:
    """A run of a sentence: plain text, a paper's name (linked to its page: ``paper_id``) or a link."""

    text: str
    paper_id: int | None = None
    href: str | None = None


Paragraph = tuple[Piece, ...]


@dataclass(frozen=True)
class Facts:
    """What a session's sentence is made of."""

    presenter: str | None
    papers: Sequence[Named]
    paragraphs: Sequence[str]  # the description's paragraphs (none: no description)
    open_week: bool = False  # a week of a series, to come, nobody presents yet
    no_paper_yet: bool = False  # a week of a series, to come, with no paper
    invite: str | None = None  # the club's Discord invite ("claim it in the Discord")


@lru_cache(maxsize=4096)
def _name_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")


def _names(title: str) -> tuple[str, ...]:
    """How a description may name a paper: its title, or the head of a "Head: subtitle" title."""
    head = title.split(": ", 1)[0].strip()
    return (title, head) if head != title and len(head) >= 2 else (title,)


def _mentions(text: str, papers: Sequence[Named], linked: set[int]) -> Paragraph:
    """``text`` with each paper's first mention (not already ``linked``) as its own piece."""
    found: list[tuple[int, int, int]] = []  # (start, end, index in papers)
    for index, paper in enumerate(papers):
        if index in linked:
            continue
        spans = [m.span() for name in _names(paper.title) for m in _name_pattern(name).finditer(text)]
        if spans:
            start, end = min(spans, key=lambda span: (span[0], -span[1]))
            found.append((start, end, index))
    pieces: list[Piece] = []
    at = 0
    for start, end, index in sorted(found):
        if start < at:
            continue  # overlaps a longer name already linked
        if start > at:
            pieces.append(Piece(text[at:start]))
        pieces.append(Piece(text[start:end], papers[index].id))
        linked.add(index)
        at = end
    if at < len(text):
        pieces.append(Piece(text[at:]))
    return tuple(pieces)


def _listed(papers: Sequence[Named]) -> list[Piece]:
    """'A', 'A and B', 'A, B and C', each a paper's piece, named by the head of a "Head: subtitle" title."""
    out: list[Piece] = []
    for index, paper in enumerate(papers):
        if index:
            out.append(Piece(" and " if index == len(papers) - 1 else ", "))
        out.append(Piece(_names(paper.title)[-1], paper.id))
    return out


def _with_roles(papers: Sequence[Named]) -> list[Piece]:
    """'A, read against B and C' where the club gave roles; else 'A, B and C'."""
    main = [p for p in papers if not p.against]
    against = [p for p in papers if p.against]
    if main and against:
        return [*_listed(main), Piece(", read against "), *_listed(against)]
    return _listed(papers)


def sentence(facts: Facts) -> tuple[Paragraph, ...]:
    """The session's paragraphs: who presents what leading into the description; an open week's claim."""
    everything = "\n".join(facts.paragraphs)
    linked: set[int] = set()
    described = [_mentions(text, facts.papers, linked) for text in facts.paragraphs]
    unsaid = [p for index, p in enumerate(facts.papers) if index not in linked]
    lead: list[Piece] = []
    if facts.presenter and not _name_pattern(facts.presenter).search(everything):
        lead = [Piece(facts.presenter), Piece(" presents")]
        if unsaid:
            lead += [Piece(" "), *_with_roles(unsaid)]
        elif facts.no_paper_yet:
            lead.append(Piece(" (no paper yet)"))
    elif unsaid:
        lead = _with_roles(unsaid)
    paragraphs: list[Paragraph] = []
    if lead and described:
        paragraphs.append((*lead, Piece(": "), *described[0]))
        paragraphs.extend(described[1:])
    elif lead:
        paragraphs.append((*lead, Piece(".")))
    else:
        paragraphs.extend(described)
    if facts.open_week:
        paragraphs.append(
            (
                Piece("Open — claim it in the "),
                Piece("Discord", href=facts.invite),
                Piece(f" with “{CLAIM}”."),
            )
        )
    return tuple(paragraphs)


def one_paragraph(paragraphs: Sequence[Paragraph]) -> Paragraph:
    """The paragraphs run together (a line of a list)."""
    out: list[Piece] = []
    for index, paragraph in enumerate(paragraphs):
        if index:
            out.append(Piece(" "))
        out.extend(paragraph)
    return tuple(out)


def plain(pieces: Sequence[Piece]) -> str:
    """The pieces' text (a feed's summary, a link preview's description)."""
    return "".join(piece.text for piece in pieces)
