"""The reading history or one reading list as a file: Markdown (the club page's form), BibTeX, CSV, JSON."""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from bot.services.papers.store import PaperInfo
from bot.services.reading.history import HistoryEntry
from bot.services.reading.lists import ListPage
from bot.timeutil import MONTHS

ExportFormat = Literal["markdown", "bibtex", "csv", "json"]
FORMATS: dict[ExportFormat, tuple[str, str, str]] = {  # extension, content type, name
    "markdown": ("md", "text/markdown", "Markdown"),
    "bibtex": ("bib", "application/x-bibtex", "BibTeX"),
    "csv": ("csv", "text/csv", "CSV"),
    "json": ("json", "application/json", "JSON"),
}
HISTORY_TITLE = "Reading so far"


@dataclass(frozen=True)
class ExportFile:
    """An export ready to attach: its file name, bytes and content type."""

    filename: str
    data: bytes
    content_type: str


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def slug(text: str, fallback: str = "export") -> str:
    """An ASCII file-name slug of ``text`` (``fallback`` when nothing is left)."""
    return re.sub(r"[^a-z0-9]+", "-", _ascii(text)).strip("-")[:60] or fallback


def _day_month(dt: datetime) -> str:
    return f"{dt.day} {MONTHS[dt.month - 1].title()}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~])")


def md_escape(text: str) -> str:
    """Text on one line with Markdown's special characters escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def md_url(url: str) -> str:
    """A URL made safe inside a Markdown link."""
    return url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")


def md_paper(paper: PaperInfo) -> str:
    """A paper as a Markdown link (or its escaped title when it has no link)."""
    title = md_escape(paper.title)
    return f"[{title}]({md_url(paper.url)})" if paper.url else title


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text[-1:] in ".?!…" else f"{text}."


def history_markdown(entries: Sequence[HistoryEntry], zone: ZoneInfo) -> str:
    """The club's reading history as Markdown, by year."""
    lines = [f"# {HISTORY_TITLE}"]
    year: int | None = None
    for entry in entries:
        local = entry.starts_at.astimezone(zone)
        if local.year != year:
            year = local.year
            lines += ["", f"## {year}", ""]
        head = f"- {_day_month(local)} — {md_escape(_sentence(entry.title))}"
        if entry.description:
            head += f" {md_escape(entry.description)}"
        lines.append(head)
        if entry.presenter_name:
            lines.append(f"  - Presented by {md_escape(entry.presenter_name)}")
        if entry.papers:
            lines.append("  - Papers: " + " · ".join(md_paper(p) for p in entry.papers))
        urls = {"Recording": entry.recording_url, "Notes": entry.notes_url, "Session page": entry.wiki_url}
        links = [f"[{label}]({md_url(url)})" for label, url in urls.items() if url]
        if links:
            lines.append("  - " + " · ".join(links))
    if not entries:
        lines += ["", "Nothing read yet."]
    return "\n".join(lines) + "\n"


def list_markdown(detail: ListPage) -> str:
    """A reading list as a numbered Markdown list, with notes."""
    lines = [f"# {md_escape(detail.summary.name)}", ""]
    if detail.summary.description:
        lines += [md_escape(detail.summary.description), ""]
    for number, item in enumerate(detail.items, 1):
        line = f"{number}. {md_paper(item.paper)}"
        if item.note:
            line += f" — {md_escape(item.note)}"
        lines.append(line)
    if not detail.items:
        lines.append("No papers yet.")
    return "\n".join(lines) + "\n"


_BIB_REPLACEMENTS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "^": r"\^{}",
    "~": r"\~{}",
}


def bib_escape(text: str) -> str:
    """Escape LaTeX specials; braces become commands so every value stays brace-balanced."""
    return "".join(_BIB_REPLACEMENTS.get(ch, ch) for ch in " ".join(text.split()))


def paper_year(paper: PaperInfo, published: str | None = None) -> str | None:
    """A paper's year: the sources', else its publication date or its arXiv id."""
    if paper.year is not None and 1000 <= paper.year <= 9999:
        return str(paper.year)
    if published and re.match(r"\d{4}", published):
        return published[:4]
    if paper.arxiv_id and re.fullmatch(r"\d{4}\.\d{4,5}", paper.arxiv_id):
        return f"20{paper.arxiv_id[:2]}"
    if paper.arxiv_id and (m := re.search(r"/(\d{2})\d{5}$", paper.arxiv_id)):
        yy = int(m.group(1))
        return f"{1900 + yy if yy >= 91 else 2000 + yy}"
    return None


def split_authors(authors: str | None) -> list[str]:
    """A paper's author text split into names."""
    if not authors or not authors.strip():
        return []
    parts = authors.split(" and ") if " and " in authors else re.split(r"[;,]", authors)
    return [" ".join(p.split()) for p in parts if p.strip()]


def citation_key(paper: PaperInfo, taken: set[str]) -> str:
    """'ivison2025tmax'-style: first author's surname, year, first title word; unique in `taken`."""
    authors = split_authors(paper.authors)
    surname = re.sub(r"[^a-z0-9]", "", _ascii(authors[0].split()[-1])) if authors else ""
    words = [re.sub(r"[^a-z0-9]", "", _ascii(w)) for w in paper.title.split()]
    first_word = next((w for w in words if w and w not in {"a", "an", "the", "on", "of"}), "")
    base = (surname + (paper_year(paper) or "") + first_word)[:40] or f"paper{paper.id}"
    key, suffix = base, ord("b")
    while key in taken:
        key = f"{base}{chr(suffix)}" if suffix <= ord("z") else f"{base}{paper.id}"
        suffix += 1
    taken.add(key)
    return key


def bibtex_entry(paper: PaperInfo, key: str, note: str | None = None) -> str:
    """One BibTeX entry for a paper under ``key``, with an optional note."""
    fields: list[tuple[str, str]] = [("title", "{" + bib_escape(paper.title) + "}")]
    authors = split_authors(paper.authors)
    if authors:
        fields.append(("author", " and ".join(bib_escape(a) for a in authors)))
    if year := paper_year(paper):
        fields.append(("year", year))
    if paper.arxiv_id:
        fields += [("eprint", paper.arxiv_id), ("archivePrefix", "arXiv")]
    if paper.venue:
        # Classic styles print a @misc's howpublished; biblatex reads venue. Both say where it appeared.
        venue = bib_escape(paper.venue)
        fields += [("howpublished", venue), ("venue", venue)]
    if paper.doi:
        fields.append(("doi", bib_escape(paper.doi)))
    if paper.url:
        fields.append(("url", paper.url.replace("{", "%7B").replace("}", "%7D").replace("\\", "%5C")))
    if note:
        fields.append(("note", bib_escape(note)))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@misc{{{key},\n{body}\n}}\n"


def _bibtex(papers: Iterable[tuple[PaperInfo, str | None]]) -> str:
    taken: set[str] = set()
    return "\n".join(bibtex_entry(paper, citation_key(paper, taken), note) for paper, note in papers)


def history_bibtex(entries: Sequence[HistoryEntry], zone: ZoneInfo) -> str:
    """Each paper once (most recent reading first), noting when the club read it."""
    readings: dict[int, tuple[PaperInfo, list[str]]] = {}
    for entry in entries:
        local = entry.starts_at.astimezone(zone)
        when = f"{_day_month(local)} {local.year} ({' '.join(entry.title.split())})"
        for paper in entry.papers:
            readings.setdefault(paper.id, (paper, []))[1].append(when)
    return _bibtex(
        (paper, "Read by the paper club on " + "; ".join(whens)) for paper, whens in readings.values()
    )


def list_bibtex(detail: ListPage) -> str:
    """A reading list as BibTeX."""
    return _bibtex((item.paper, item.note) for item in detail.items)


#: What the sources said (enrichment), in every paper's CSV row and JSON object.
PAPER_FIELD_COLUMNS = ["year", "venue", "decision", "tldr", "citations", "code_url"]


def _paper_fields(paper: PaperInfo) -> list[object]:
    return [paper.year, paper.venue, paper.decision, paper.tldr, paper.citation_count, paper.code_url]


def _paper_cells(paper: PaperInfo | None) -> list[object]:
    if paper is None:
        return [None] * len(PAPER_CSV_COLUMNS)
    return [paper.title, paper.url, paper.arxiv_id, paper.doi, *_paper_fields(paper)]


PAPER_CSV_COLUMNS = ["paper", "paper_url", "arxiv_id", "doi", *PAPER_FIELD_COLUMNS]
HISTORY_CSV_COLUMNS = ["date", "session", "presenter", *PAPER_CSV_COLUMNS, "recording_url", "notes_url"]
LIST_CSV_COLUMNS = ["list", "position", *PAPER_CSV_COLUMNS, "note", "added_at"]


def csv_cell(value: object) -> str:
    """Text for a CSV cell; a leading = + - @ or tab gets an apostrophe so spreadsheets don't run it."""
    text = "" if value is None else str(value)
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _csv(columns: list[str], rows: Iterable[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([csv_cell(v) for v in row] for row in rows)
    return out.getvalue()


def history_csv(entries: Sequence[HistoryEntry], zone: ZoneInfo) -> str:
    """The club's reading history as CSV."""

    def rows() -> Iterable[Sequence[object]]:
        for e in entries:
            head = [e.starts_at.astimezone(zone).date().isoformat(), e.title, e.presenter_name]
            for paper in e.papers or [None]:
                yield [*head, *_paper_cells(paper), e.recording_url, e.notes_url]

    return _csv(HISTORY_CSV_COLUMNS, rows())


def list_csv(detail: ListPage) -> str:
    """A reading list as CSV."""
    name = detail.summary.name
    rows = (
        [name, n, *_paper_cells(i.paper), i.note, i.added_at.isoformat()]
        for n, i in enumerate(detail.items, 1)
    )
    return _csv(LIST_CSV_COLUMNS, rows)


def _paper_json(paper: PaperInfo) -> dict[str, Any]:
    return {
        "title": paper.title,
        "url": paper.url,
        "arxiv_id": paper.arxiv_id,
        "doi": paper.doi,
        "authors": paper.authors,
        **dict(zip(PAPER_FIELD_COLUMNS, _paper_fields(paper), strict=True)),
    }


def history_json(entries: Sequence[HistoryEntry], zone: ZoneInfo) -> str:
    """The club's reading history as JSON."""
    sessions = [
        {
            "date": e.starts_at.astimezone(zone).date().isoformat(),
            "starts_at": e.starts_at.isoformat(),
            "title": e.title,
            "description": e.description,
            "presenter": e.presenter_name,
            "papers": [_paper_json(p) for p in e.papers],
            "recording_url": e.recording_url,
            "notes_url": e.notes_url,
            "wiki_url": e.wiki_url,
        }
        for e in entries
    ]
    return json.dumps({"title": HISTORY_TITLE, "sessions": sessions}, ensure_ascii=False, indent=2) + "\n"


def list_json(detail: ListPage) -> str:
    """A reading list as JSON."""
    papers = [
        {**_paper_json(i.paper), "note": i.note, "added_at": i.added_at.isoformat()} for i in detail.items
    ]
    data = {"list": detail.summary.name, "description": detail.summary.description, "papers": papers}
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def export_history(fmt: ExportFormat, entries: Sequence[HistoryEntry], zone: ZoneInfo) -> ExportFile:
    """The reading history as a file in ``fmt``."""
    render = {
        "markdown": history_markdown,
        "bibtex": history_bibtex,
        "csv": history_csv,
        "json": history_json,
    }
    ext, mime, _ = FORMATS[fmt]
    return ExportFile(f"reading-history.{ext}", render[fmt](entries, zone).encode(), mime)


def export_list(fmt: ExportFormat, detail: ListPage) -> ExportFile:
    """A reading list as a file in ``fmt``."""
    render = {"markdown": list_markdown, "bibtex": list_bibtex, "csv": list_csv, "json": list_json}
    ext, mime, _ = FORMATS[fmt]
    return ExportFile(
        f"{slug(detail.summary.name, 'reading-list')}.{ext}", render[fmt](detail).encode(), mime
    )
