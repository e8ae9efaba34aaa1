"""Every export format, parsed back: Markdown (the club page's form, compared with the expected text),
BibTeX (with bibtexparser), CSV and JSON — for the history and for a reading list."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import bibtexparser
import pytest
from sqlalchemy import select

from bot.services.programme.files import import_text
from bot.services.reading.exports import (
    HISTORY_CSV_COLUMNS,
    LIST_CSV_COLUMNS,
    bib_escape,
    export_history,
    export_list,
    history_markdown,
    list_markdown,
)
from bot.services.reading.history import all_history
from bot.services.reading.lists import named_list
from db.models import Paper
from tests.reading.conftest import GUILD

PT = ZoneInfo("America/Los_Angeles")
NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)

SMALL = """\
guild_id: 9
sessions:
  - title: What is a verifier?
    starts_at: 2025-12-04 09:30
    presenter: Ada *Lovelace*
    papers:
      - paper: https://arxiv.org/abs/2406.12045
        title: "τ-bench: a benchmark for {tool} agents & users"
        authors: Shunyu Yao, Noah Shinn, Pedram Razavi, Karthik Narasimhan
      - Plain Title_with_underscores
    recording_url: https://example.org/rec(1)
    notes_url: https://example.org/notes
  - title: New year, new gyms
    starts_at: 2026-01-08 09:30
    description: Two gyms, one =SUM(A1) cell.
    papers: ["=HYPERLINK(evil)", doi:10.1145/3366423.3380211]
  - title: Not yet
    starts_at: 2026-12-10 09:30
lists:
  - name: Gym list
    description: Gyms worth a look.
    papers:
      - paper: "2406.12045"
        note: "The τ-bench paper, 50% of the fun"
      - Plain Title_with_underscores
"""

EXPECTED_HISTORY_MD = """\
# Reading so far

## 2026

- 8 January — New year, new gyms. Two gyms, one =SUM(A1) cell.
  - Papers: =HYPERLINK(evil) · [doi:10.1145/3366423.3380211](https://doi.org/10.1145/3366423.3380211)

## 2025

- 4 December — What is a verifier?
  - Presented by Ada \\*Lovelace\\*
  - Papers: [τ-bench: a benchmark for {tool} agents & users](https://arxiv.org/abs/2406.12045) · Plain Title\\_with\\_underscores
  - [Recording](https://example.org/rec%281%29) · [Notes](https://example.org/notes)
"""

EXPECTED_LIST_MD = """\
# Gym list

Gyms worth a look.

1. [τ-bench: a benchmark for {tool} agents & users](https://arxiv.org/abs/2406.12045) — The τ-bench paper, 50% of the fun
2. Plain Title\\_with\\_underscores
"""


@pytest.fixture
async def small(session_factory):
    await import_text(session_factory, SMALL, suffix=".yaml", guild_id=None)
    async with session_factory() as session:
        history = await all_history(session, 9, NOW)
        detail = await named_list(session, 9, "gym LIST")
    return history, detail


async def test_markdown_is_the_expected_text(small) -> None:
    history, detail = small
    assert history_markdown(history, PT) == EXPECTED_HISTORY_MD
    assert list_markdown(detail) == EXPECTED_LIST_MD
    assert export_history("markdown", history, PT).filename == "reading-history.md"
    assert export_list("markdown", detail).filename == "gym-list.md"


# The club page's "Reading so far", line by line (the page's bullet is Markdown's "-").
CLUB_PAGE_LINES = [
    "- 16 October — Sandbox infrastructure for environments at scale. DSec, the sandbox platform behind "
    "DeepSeek’s RL: what you need underneath before environment creation can scale.",
    "- 17 March — Priorities in LLM-generated environments. AgentScaler, AutoEnv and OMNI on generating "
    "environments, tasks and reward logic with LLMs, and choosing which generated tasks are worth training on.",
    "- 11 February — OS-Genesis: reverse task synthesis. OS-Genesis on starting from what the agent did and "
    "working backwards to the task.",
]


async def test_club_history_reads_like_the_club_page(club) -> None:
    async with club() as session:
        history = await all_history(session, GUILD, NOW)
    text = history_markdown(history, PT)
    lines = text.splitlines()
    assert lines[:4] == ["# Reading so far", "", "## 2026", ""]
    for expected in CLUB_PAGE_LINES:
        assert expected in lines
    bullets = [line for line in lines if line.startswith("- ")]
    assert len(bullets) == 15  # both November sessions have taken place by 30 November
    assert bullets[0].startswith("- 19 November — User models and user simulators.")


async def test_bibtex_parses_back(small) -> None:
    history, detail = small
    parsed = bibtexparser.loads(export_history("bibtex", history, PT).data.decode())
    by_title = {e["title"]: e for e in parsed.entries}
    assert len(parsed.entries) == 4
    tau = by_title[r"{τ-bench: a benchmark for \textbraceleft{}tool\textbraceright{} agents \& users}"]
    assert tau["ENTRYTYPE"] == "misc"
    assert tau["eprint"] == "2406.12045"
    assert tau["archiveprefix"] == "arXiv"
    assert tau["year"] == "2024"
    assert tau["ID"] == "yao2024bench"
    assert tau["author"] == "Shunyu Yao and Noah Shinn and Pedram Razavi and Karthik Narasimhan"
    assert tau["note"] == "Read by the paper club on 4 December 2025 (What is a verifier?)"
    doi = next(e for e in parsed.entries if "doi" in e)
    assert doi["doi"] == "10.1145/3366423.3380211"
    assert "eprint" not in doi
    assert len({e["ID"] for e in parsed.entries}) == 4

    listed = bibtexparser.loads(export_list("bibtex", detail).data.decode())
    assert [e.get("note") for e in listed.entries] == [r"The τ-bench paper, 50\% of the fun", None]
    assert export_list("bibtex", detail).filename == "gym-list.bib"


def test_bibtex_values_stay_brace_balanced() -> None:
    for text in ["}", "{", "a}b{c", "\\", "%&$#_^~"]:
        escaped = bib_escape(text)
        depth = 0
        for ch in escaped:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            assert depth >= 0
        assert depth == 0
        entry = f"@misc{{k,\n  title = {{{escaped}}}\n}}\n"
        assert bibtexparser.loads(entry).entries[0]["title"] == escaped


async def test_csv_parses_back(small) -> None:
    history, detail = small
    rows = list(csv.DictReader(io.StringIO(export_history("csv", history, PT).data.decode())))
    assert list(rows[0]) == HISTORY_CSV_COLUMNS
    assert [(r["date"], r["paper"]) for r in rows] == [
        ("2026-01-08", "'=HYPERLINK(evil)"),  # a formula is defused
        ("2026-01-08", "doi:10.1145/3366423.3380211"),
        ("2025-12-04", "τ-bench: a benchmark for {tool} agents & users"),
        ("2025-12-04", "Plain Title_with_underscores"),
    ]
    assert rows[2]["arxiv_id"] == "2406.12045"
    assert rows[2]["presenter"] == "Ada *Lovelace*"
    assert rows[2]["recording_url"] == "https://example.org/rec(1)"

    items = list(csv.DictReader(io.StringIO(export_list("csv", detail).data.decode())))
    assert list(items[0]) == LIST_CSV_COLUMNS
    assert [(i["list"], i["position"], i["note"]) for i in items] == [
        ("Gym list", "1", "The τ-bench paper, 50% of the fun"),
        ("Gym list", "2", ""),
    ]


async def test_json_parses_back(small) -> None:
    history, detail = small
    data = json.loads(export_history("json", history, PT).data)
    assert data["title"] == "Reading so far"
    assert [s["date"] for s in data["sessions"]] == ["2026-01-08", "2025-12-04"]
    first = data["sessions"][1]
    assert first["presenter"] == "Ada *Lovelace*"
    assert first["papers"][0] == {
        "title": "τ-bench: a benchmark for {tool} agents & users",
        "url": "https://arxiv.org/abs/2406.12045",
        "arxiv_id": "2406.12045",
        "doi": None,
        "authors": "Shunyu Yao, Noah Shinn, Pedram Razavi, Karthik Narasimhan",
        "year": None,
        "venue": None,
        "decision": None,
        "tldr": None,
        "citations": None,
        "code_url": None,
    }
    assert datetime.fromisoformat(first["starts_at"]) == datetime(2025, 12, 4, 17, 30, tzinfo=UTC)

    listed = json.loads(export_list("json", detail).data)
    assert listed["list"] == "Gym list"
    assert listed["description"] == "Gyms worth a look."
    assert [p["note"] for p in listed["papers"]] == ["The τ-bench paper, 50% of the fun", None]


HOSTILE_VENUE = "ICLR {2026} @everyone =cmd"
HOSTILE_TLDR = "=HYPERLINK(evil) **bold** } unbalanced {"


async def test_the_sources_fields_are_in_every_format(session_factory) -> None:
    """Once enrichment filled them in: BibTeX gains the venue (howpublished and venue) and the sources'
    year, CSV and JSON the year, venue, decision, TLDR, citations and code link; hostile text stays inert."""
    await import_text(session_factory, SMALL, suffix=".yaml", guild_id=None)
    async with session_factory() as session, session.begin():
        paper = await session.scalar(select(Paper).where(Paper.arxiv_id == "2406.12045"))
        assert paper is not None
        paper.year, paper.venue, paper.decision = 2025, HOSTILE_VENUE, "Accept (Oral)"
        paper.tldr, paper.citation_count = HOSTILE_TLDR, 120
        paper.code_url = "https://github.com/sierra-research/tau-bench"
    async with session_factory() as session:
        history = await all_history(session, 9, NOW)
        detail = await named_list(session, 9, "gym list")

    entries = bibtexparser.loads(export_list("bibtex", detail).data.decode()).entries
    tau = next(e for e in entries if e.get("eprint") == "2406.12045")
    assert tau["year"] == "2025"  # the sources' year wins over the arXiv id's 2024
    venue = r"ICLR \textbraceleft{}2026\textbraceright{} @everyone =cmd"
    assert tau["howpublished"] == tau["venue"] == venue
    assert tau["url"] == "https://arxiv.org/abs/2406.12045"

    rows = list(csv.DictReader(io.StringIO(export_history("csv", history, PT).data.decode())))
    row = next(r for r in rows if r["arxiv_id"] == "2406.12045")
    assert (row["year"], row["venue"], row["decision"]) == ("2025", HOSTILE_VENUE, "Accept (Oral)")
    assert row["tldr"] == "'" + HOSTILE_TLDR  # a formula is defused
    assert (row["citations"], row["code_url"]) == ("120", "https://github.com/sierra-research/tau-bench")
    items = list(csv.DictReader(io.StringIO(export_list("csv", detail).data.decode())))
    assert items[0]["venue"] == HOSTILE_VENUE

    listed = json.loads(export_list("json", detail).data)["papers"][0]
    assert listed["year"] == 2025
    assert listed["venue"] == HOSTILE_VENUE
    assert listed["tldr"] == HOSTILE_TLDR
    assert listed["citations"] == 120


async def test_empty_exports(session_factory) -> None:
    async with session_factory() as session:
        history = await all_history(session, 123, NOW)
    assert history_markdown(history, PT) == "# Reading so far\n\nNothing read yet.\n"
    assert json.loads(export_history("json", history, PT).data) == {"title": "Reading so far", "sessions": []}
    assert bibtexparser.loads(export_history("bibtex", history, PT).data.decode()).entries == []
    assert export_history("csv", history, PT).data.decode().splitlines() == [",".join(HISTORY_CSV_COLUMNS)]
