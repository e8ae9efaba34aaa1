"""Fixtures for the suggestion tests: the local arXiv stand-in, the bot pointed at it, and helpers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from standin.arxiv import ArxivStandin

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
TAU_BENCH = "Tau-Bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains"


@pytest.fixture
def arxiv(arxiv: ArxivStandin) -> ArxivStandin:
    """The shared local arXiv stand-in, seeded with the papers these tests suggest."""
    standin = arxiv
    standin.add(
        "2406.12045", TAU_BENCH, ["Shunyu Yao", "Noah Shinn"], "We propose tau-bench.", "2024-06-17T17:42:00Z"
    )
    standin.add(
        "2506.07982",
        "Tau2-Bench: Evaluating Conversational Agents in a Dual-Control Environment",
        ["V. Barres"],
    )
    standin.add(
        "2401.12345", "AutoEnv: Automated Environments for Measuring Cross-Environment Agent Learning"
    )
    return standin


@pytest.fixture
def bot_settings_overrides(bot_settings_overrides: dict[str, Any]) -> dict[str, Any]:
    return {**bot_settings_overrides, "suggestions_per_day": 5}
