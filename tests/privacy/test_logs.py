"""Logs carry ids, never what a member typed: a title search that fails says which search, not its words."""

from __future__ import annotations

import contextlib
import logging

import pytest

from bot.sources.arxiv import ArxivClient
from bot.sources.http import SourceUnavailable
from standin.arxiv import ArxivStandin


async def test_a_failed_title_search_logs_no_title(
    arxiv: ArxivStandin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="paperclub")
    arxiv.rate_limit_next(5)
    client = ArxivClient(arxiv.url, retries=1, max_wait=0)
    try:
        with contextlib.suppress(SourceUnavailable):
            await client.search_titles("A Secret Title Someone Typed")
    finally:
        await client.close()
    assert "rate-limited" in caplog.text
    assert "Secret" not in caplog.text
