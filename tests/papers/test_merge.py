"""The merge rules (bot/services/papers/metadata.py): precedence, the club's own values, provenance, caps."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.services.papers.metadata import SourceRecord, merge
from bot.sources import clean

T1 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
T2 = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)


def test_each_field_comes_from_its_best_source_with_where_and_when() -> None:
    merged = merge(
        {},
        None,
        [
            SourceRecord("semantic_scholar", T1, {"title": "S2 title", "venue": "NeurIPS", "tldr": "Short."}),
            SourceRecord("arxiv", T1, {"title": "arXiv title", "year": 2025}),
            SourceRecord("openreview", T1, {"venue": "ICLR 2026 Oral", "decision": "Accept (oral)"}),
            SourceRecord("huggingface", T1, {"code_url": "https://github.com/a/b", "tldr": "not HF's field"}),
        ],
    )
    assert merged.changes == {
        "title": "arXiv title",
        "venue": "ICLR 2026 Oral",
        "decision": "Accept (oral)",
        "tldr": "Short.",
        "year": 2025,
        "code_url": "https://github.com/a/b",
    }
    assert merged.sources["title"] == ["arxiv", T1.isoformat()]
    assert merged.sources["venue"][0] == "openreview"
    assert merged.sources["tldr"][0] == "semantic_scholar"


def test_the_clubs_own_title_is_never_replaced_but_a_placeholder_is() -> None:
    records = [SourceRecord("arxiv", T1, {"title": "Real title"})]
    assert merge({"title": "Our name for it"}, {}, records).changes == {}
    filled = merge({"title": "arXiv:2401.00001"}, {}, records, placeholders=frozenset({"title"}))
    assert filled.changes == {"title": "Real title"}


def test_a_worse_source_does_not_replace_a_better_ones_value_but_a_refresh_updates_it() -> None:
    current = {"venue": "ICLR 2026 Oral", "citation_count": 3}
    stored = {"venue": ["openreview", T1.isoformat()], "citation_count": ["semantic_scholar", T1.isoformat()]}
    merged = merge(
        current, stored, [SourceRecord("semantic_scholar", T2, {"venue": "ICLR", "citation_count": 9})]
    )
    assert merged.changes == {"citation_count": 9}
    assert merged.sources["venue"] == ["openreview", T1.isoformat()]
    assert merged.sources["citation_count"] == ["semantic_scholar", T2.isoformat()]


def test_garbage_is_dropped_and_long_text_capped() -> None:
    merged = merge(
        {},
        None,
        [
            SourceRecord(
                "semantic_scholar",
                T1,
                {
                    "tldr": "x" * 10_000,
                    "citation_count": "many",
                    "pdf_url": "javascript:alert(1)",
                    "year": -3,
                },
            )
        ],
    )
    assert set(merged.changes) == {"tldr"}
    assert len(merged.changes["tldr"]) <= clean.TLDR_MAX
