"""The local Discord stand-in is its own package: importing every module of it, in a fresh interpreter,
loads nothing of ours (bot, cogs, db), so it could be lifted out of the project as it is."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import standin

ROOT = Path(__file__).resolve().parents[2]
OURS = ("bot", "cogs", "db")


def test_standin_imports_nothing_of_ours() -> None:
    names = sorted(f"standin.{m.name}" for m in pkgutil.iter_modules(standin.__path__))
    assert {"standin.server", "standin.gateway", "standin.arxiv"} <= set(names)
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        f"ours = sorted(m for m in sys.modules if m.split('.')[0] in {OURS!r})\n"
        "assert not ours, ours\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_only_the_demo_package_imports_the_standin() -> None:
    """Outside tests and benches, `bot/demo/` is the one place that drives our bot in the stand-in."""
    importers = sorted(
        str(path.relative_to(ROOT))
        for folder in ("bot", "cogs", "db")
        for path in (ROOT / folder).rglob("*.py")
        if any(
            line.startswith(("from standin", "import standin"))
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    )
    assert importers, "bot/demo/ drives the stand-in"
    assert all(name.startswith("bot/demo/") for name in importers), importers
