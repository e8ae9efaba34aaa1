"""Clients for the outside services that know about papers (discord-free).

One module per source (``arxiv``, ``semantic_scholar``, ``huggingface``, ``openreview``, ``crossref``,
``datacite``), each citing its limits, all on :mod:`bot.sources.http` (one pacer per source at its published
rate, ``Retry-After``, a timeout, a retry or two, a User-Agent naming the bot); arXiv's turn is shared in
the store (:mod:`bot.sources.turns`). Each returns plain frozen dataclasses saying what that source knows,
``None`` when the source does not know the paper, and raises :class:`~bot.sources.http.SourceUnavailable`
when it could not be asked. Values are cleaned (control characters, whitespace, length caps in
:mod:`bot.sources.clean`, http(s) links only) but stay untrusted: markdown and mentions are escaped where
they are shown.
"""

from __future__ import annotations

#: Every source PAPER_SOURCES can name, in the order the card lists them.
SOURCE_NAMES = ("arxiv", "semantic_scholar", "huggingface", "openreview", "crossref", "datacite")
