"""Services (every module of every feature package in bot/services/) take plain values and never import discord (HACKING.md): importing all of them, in a fresh
interpreter, leaves discord unloaded."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import bot.services

ROOT = Path(__file__).resolve().parents[2]


def test_no_service_module_imports_discord() -> None:
    names = sorted(m.name for m in pkgutil.walk_packages(bot.services.__path__, "bot.services."))
    assert {"bot.services.sessions.queries", "bot.services.reminders.runner"} <= set(names)
    assert "bot.text" not in names
    script = (
        "import importlib, sys\n"
        f"for name in {names + ['bot.text']!r}:\n"
        "    importlib.import_module(name)\n"
        "    assert 'discord' not in sys.modules, name\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_services_are_feature_packages() -> None:
    """One home per feature: `bot/services/<feature>/<what>.py`, no feature-prefixed modules beside them."""
    services = ROOT / "bot" / "services"
    loose = sorted(p.name for p in services.glob("*.py") if p.name != "__init__.py")
    assert loose == []
    features = sorted(p.name for p in services.iterdir() if (p / "__init__.py").exists())
    assert {"sessions", "reminders", "suggestions", "reading"} <= set(features)
