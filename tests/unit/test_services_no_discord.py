"""Services take plain values and never import discord (HACKING.md): importing all of them, in a fresh
interpreter, leaves discord unloaded."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import bot.services

ROOT = Path(__file__).resolve().parents[2]


def test_no_service_module_imports_discord() -> None:
    names = sorted(f"bot.services.{m.name}" for m in pkgutil.iter_modules(bot.services.__path__))
    assert "bot.services.sessions_queries" in names and "bot.text" not in names
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
