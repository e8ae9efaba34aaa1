"""README's "Data the bot keeps" lists the kinds of bot/services/privacy/kinds.py, in its order, each with
its what and why; every setting of the feature is in README and .env.example."""

from __future__ import annotations

from pathlib import Path

from bot.services.privacy.kinds import KINDS

ROOT = Path(__file__).resolve().parents[2]


def _section(text: str, heading: str) -> str:
    start = text.index(f"## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_the_readme_lists_the_same_kinds() -> None:
    section = _section((ROOT / "README.md").read_text(encoding="utf-8"), "Data the bot keeps")
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| kind")]
    rows = [row for row in rows if not row.startswith("| ---")]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == [kind.name for kind in KINDS]
    for row, kind in zip(rows, KINDS, strict=True):
        said = kind.said(30)
        assert f"{said.what} {said.why}" in row, kind.name


def test_the_grace_period_setting_is_documented() -> None:
    assert "GUILD_DATA_GRACE_DAYS=30" in (ROOT / ".env.example").read_text(encoding="utf-8")
    assert "| `GUILD_DATA_GRACE_DAYS` | `30` |" in (ROOT / "README.md").read_text(encoding="utf-8")
