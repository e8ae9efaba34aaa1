"""Clients for the outside services that know about papers (discord-free), one module per source citing its
limits: plain results, None for a paper the source does not know, :class:`~bot.sources.http.SourceUnavailable`
when it could not be asked; values cleaned (:mod:`bot.sources.clean`) but untrusted."""

from __future__ import annotations

#: Every source PAPER_SOURCES can name, in the order the card lists them.
SOURCE_NAMES = ("arxiv", "semantic_scholar", "huggingface", "openreview", "crossref", "datacite")
