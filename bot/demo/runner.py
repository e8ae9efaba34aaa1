"""`paperclub demo`: the tours of `bot/demo/tours/` in ``ORDER`` on one guild, store and FakeClock."""

from __future__ import annotations

import importlib
import logging
import pkgutil
import sys
import tempfile
import textwrap
import time
import traceback
from pathlib import Path
from typing import Any, TextIO

from bot.clock import FakeClock
from bot.demo import readable, tours
from bot.demo.botenv import BotEnv
from bot.demo.stage import RULE, Demo, SceneFailed
from bot.logs import setup_logging
from standin.state import DISCORD_EPOCH_MS, Snowflakes

DEMO_PUBLIC_URL = "https://club.example.org"


class ClockSnowflakes(Snowflakes):
    """The stand-in's ids timed by the demo's FakeClock: the same ids (and links) on every run."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__()
        self._clock = clock

    def next(self) -> int:
        """A new snowflake whose time is the demo's fake clock."""
        ms = int(self._clock.now().timestamp() * 1000) - DISCORD_EPOCH_MS
        candidate = (ms << 22) | (next(self._increment) & 0xFFF)
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


def discover_tours() -> list[Any]:
    """The tour modules, in their ``ORDER``."""
    modules = [
        importlib.import_module(f"{tours.__name__}.{m.name}") for m in pkgutil.iter_modules(tours.__path__)
    ]
    return sorted((m for m in modules if hasattr(m, "tour")), key=lambda m: getattr(m, "ORDER", 100))


def introduction(env: BotEnv) -> str:
    """What the tour says once, before its first scene: who is who, and that every outside service is local."""
    world = env.world
    members = ", ".join(f"@{m.display_name}" for m in world.members[:-1])
    about = (
        "Every outside service here is a local stand-in: Discord (the “Paper Club” server: "
        f"@{world.admin.display_name} its admin, @{world.organizer.display_name} an organizer, {members} and "
        f"@{world.members[-1].display_name} members), arXiv, Semantic Scholar, Hugging Face and OpenReview. "
        "The papers those sources know, with their counts, were put there for the demo; the sessions and "
        "series the demo makes are named “Demo …”; the programme it imports (examples/club.yaml) is the real "
        "club's.\n"
        f"Discord shows some times in each reader's own zone; the demo's reader is in {readable.READER_ZONE}."
    )
    return "paperclub demo — the bot on this machine alone (no token, no network)\n\n" + "\n".join(
        textwrap.fill(paragraph, len(RULE)) for paragraph in about.split("\n")
    )


async def run_demo(*, verbose: bool = False, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    """Run every tour on a throwaway SQLite store; 0, or 1 when a scene failed (named on ``err``)."""
    setup_logging("INFO" if verbose else "ERROR")
    started = time.perf_counter()
    demo: Demo | None = None
    try:
        with tempfile.TemporaryDirectory(prefix="paperclub-demo-") as tmp:
            url = f"sqlite+aiosqlite:///{Path(tmp) / 'demo.db'}"
            # The site on a free port; links show a fixed PUBLIC_URL, so every run prints the same.
            env = BotEnv(database_url=url, settings_overrides={"web_port": 0, "public_url": DEMO_PUBLIC_URL})
            env.standin.state.ids = ClockSnowflakes(env.clock)
            async with env:
                demo = Demo(env, out)
                print(introduction(env), file=out)
                demo.watch_log(True)
                try:
                    for module in discover_tours():
                        await module.tour(demo)
                    demo.end_scene()
                finally:
                    demo.watch_log(False)
    except SceneFailed as failure:
        print(f"\nThe demo failed: {failure}.", file=err)
        return 1
    except Exception:  # noqa: BLE001  whatever broke, the demo names the scene it broke in and exits 1
        where = f"in the scene “{demo.scene}”" if demo is not None else "before its first scene"
        print(f"\nThe demo failed {where}:\n{traceback.format_exc()}", file=err)
        return 1
    # The elapsed time goes to the log: the same tour prints the same text on every run.
    logging.getLogger("paperclub.demo").info(
        "demo finished in %.1f s, %d scenes", time.perf_counter() - started, demo.scenes
    )
    print(f"\n{RULE}\nDemo finished: {demo.scenes} scenes.", file=out)
    return 0
