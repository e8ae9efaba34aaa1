"""The short form of a paper's card: plain, escaped lines any post can show (suggestion posts, sessions)."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from urllib.parse import quote

from bot.sources.huggingface import WEB_ROOT as HUB_ROOT
from bot.sources.huggingface import split_path
from bot.sources.semantic_scholar import ATTRIBUTION_TEXT, ATTRIBUTION_URL
from bot.text import cut, markdown_link, one_line
from db.models import Paper

LINE_MAX = 300
TLDR_SHOWN = 400
_MARKDOWN = re.compile(r"([\\*_~`|>#\[\]])")
_WORD = re.compile(r"\w+")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_HUB_KINDS = {"models": "Models", "datasets": "Data sets", "spaces": "Spaces"}


@dataclass(frozen=True)
class PaperRecord:
    """What the outside sources said about a paper, as plain values."""

    tldr: str | None = None
    year: int | None = None
    venue: str | None = None
    decision: str | None = None
    citation_count: int | None = None
    influential_citation_count: int | None = None
    pdf_url: str | None = None
    code_url: str | None = None
    project_url: str | None = None
    hf_url: str | None = None
    hf_models: int | None = None
    hf_datasets: int | None = None
    hf_spaces: int | None = None
    hf_upvotes: int | None = None
    hf_top: tuple[str, ...] = ()  # the most liked repos' paths on the Hub ("org/m", "datasets/org/d")
    openreview_url: str | None = None
    s2_url: str | None = None
    from_scholar: bool = False  # a field shown came from Semantic Scholar: its attribution is due


def paper_record(row: Paper) -> PaperRecord:
    """A stored paper's source fields."""
    values = {
        f.name: getattr(row, f.name) for f in fields(PaperRecord) if f.name not in ("hf_top", "from_scholar")
    }
    return PaperRecord(
        **values,
        hf_top=tuple(p for p in (row.hf_top or ()) if isinstance(p, str)),
        from_scholar=any(
            isinstance(v, list) and v[:1] == ["semantic_scholar"] for v in (row.field_sources or {}).values()
        ),
    )


def arxiv_urls(arxiv_id: str | None) -> tuple[str | None, str | None]:
    """arXiv's abstract and PDF pages for an id (None for both without one)."""
    if not arxiv_id:
        return None, None
    quoted = quote(arxiv_id, safe="./")
    return f"https://arxiv.org/abs/{quoted}", f"https://arxiv.org/pdf/{quoted}"


def plain(text: str, limit: int = LINE_MAX) -> str:
    """Untrusted text shown as typed: one line, markdown escaped, no mention that can ping."""
    line = one_line(text, limit)
    line = _MARKDOWN.sub(r"\\\1", line)
    line = line.replace("@", "@\u200b").replace("<", "<\u200b")
    return cut(line, limit * 2)


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def count_parts(record: PaperRecord, *, models: bool = True) -> list[str]:
    """'120 citations (7 influential)', then (with ``models``) the Hub's counts and upvotes."""
    parts: list[str] = []
    if record.citation_count is not None:
        cited = _counted(record.citation_count, "citation")
        if record.influential_citation_count:
            cited += f" ({record.influential_citation_count} influential)"
        parts.append(cited)
    if models:
        hub = ((record.hf_models, "model"), (record.hf_datasets, "data set"), (record.hf_spaces, "Space"))
        parts += [_counted(count, noun) for count, noun in hub if count]
        if record.hf_upvotes:
            parts.append(_counted(record.hf_upvotes, "upvote") + " on Hugging Face")
    return parts


def hub_top(record: PaperRecord) -> list[tuple[str, list[tuple[str, str]]]]:
    """The most liked models, data sets and Spaces: (kind, [(repo id, its Hub page)])."""
    kinds: dict[str, list[tuple[str, str]]] = {kind: [] for kind in _HUB_KINDS}
    for path in record.hf_top:
        if found := split_path(path):
            kinds[found[0]].append((found[1], f"{HUB_ROOT}/{path}"))
    return [(_HUB_KINDS[kind], repos) for kind, repos in kinds.items() if repos]


def where_parts(record: PaperRecord) -> list[str]:
    """Venue, decision and year, each said once (unescaped)."""
    venue, decision = record.venue or "", record.decision or ""
    venue_words = set(_WORD.findall(venue.casefold()))
    said = set(_WORD.findall(decision.casefold())) - {"accept", "accepted"}
    if venue and said <= venue_words and not venue.casefold().startswith("submitted"):
        decision = ""
    year = "" if _YEAR.search(f"{venue} {decision}") else str(record.year or "")
    return list(dict.fromkeys(part for part in (venue, decision, year) if part))


def short_lines(record: PaperRecord) -> list[str]:
    """The short card: TLDR, venue/decision/year, citations, links, and Semantic Scholar's attribution."""
    lines: list[str] = []
    if record.tldr:
        lines.append(f"**TLDR:** {plain(record.tldr, TLDR_SHOWN)}")
    where = [plain(part, 120) for part in where_parts(record)]
    if where:
        lines.append(" · ".join(where))
    cited = count_parts(record, models=False)
    if cited:
        lines.append(cited[0])
    links = [
        markdown_link(label, url, preview=False)
        for label, url in (
            ("PDF", record.pdf_url),
            ("Code", record.code_url),
            ("Project", record.project_url),
            ("Hugging Face", record.hf_url),
            ("OpenReview", record.openreview_url),
        )
        if url
    ]
    if links:
        lines.append(" · ".join(links))
    if record.from_scholar:
        lines.append("-# " + markdown_link(ATTRIBUTION_TEXT, record.s2_url or ATTRIBUTION_URL, preview=False))
    return lines


def fit_lines(lines: list[str], limit: int) -> str:
    """Whole lines joined while they fit in ``limit`` characters (a link is never cut in half)."""
    kept: list[str] = []
    for line in lines:
        if len("\n".join([*kept, line])) <= limit:
            kept.append(line)
    return "\n".join(kept)
