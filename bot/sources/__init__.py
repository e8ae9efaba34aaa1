"""Clients for the paper sources: plain results, None for a paper unknown, SourceUnavailable when not asked."""

from __future__ import annotations

#: Every source PAPER_SOURCES can name, in the order the card lists them.
SOURCE_NAMES = ("arxiv", "semantic_scholar", "huggingface", "openreview", "crossref", "datacite")
