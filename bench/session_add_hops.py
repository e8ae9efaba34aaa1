"""The hops of one /session add through the local stand-in: how often the zone is resolved, the start
checked, the papers split and parsed, store sessions opened, and which calls the command body makes
(each return to it between service calls is a hop).

    .venv/bin/python -m bench.session_add_hops
    # the same on a tree with the stand-in as its own package and bot/demo/, e.g. the commit before the
    # draft (older trees had the bot env elsewhere; the figures before #10 are in its closing note):
    git worktree add /tmp/old <commit> && PYTHONPATH=/tmp/old .venv/bin/python bench/session_add_hops.py

One organizer adds a session with a zone, a presenter and three papers (two of them one arXiv paper,
one arXiv paper new to the store, so its title is looked up) in a guild where the bot may create
events. Counts are per asyncio task: the command's own, and the listeners of ``session_saved``
(other features' work, shown apart). Deterministic: no timings.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

OPTIONS = {
    "title": "Building data recipes for terminal agents",
    "when": "2026-12-10 09:30",
    "timezone": "PT",
    "papers": "TMax\narXiv:2401.12345v2; https://arxiv.org/pdf/2401.12345v3",
    "signup_url": "https://lu.ma/paperclub",
}
COUNTED = {
    "zone resolutions (the session's zone)": ("bot.timeutil", "resolve_timezone"),
    "start checks": ("bot.timeutil", "ensure_future"),
    "paper parses (parse_paper_ref)": ("bot.papers", "parse_paper_ref"),
    "paper list splits": ("bot.papers", "split_paper_list"),
}


def _task() -> str:
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return "(no task)"
    return task.get_name() if task else "(no task)"


def _counting(label: str, func: Callable[..., Any], seen: dict[str, Counter[str]]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1)
        where = f"{caller.f_globals.get('__name__')}.{caller.f_code.co_qualname}"
        if where.endswith("parse_display_zones"):  # the guild's display zones, not the session's zone
            seen[_task()]["display-zone parses (GuildConfig.display_zones)"] += 1
        else:
            seen[_task()][label] += 1
            seen[_task()][f"{label}: {where}"] += 1
        return func(*args, **kwargs)

    return wrapper


def _patch_everywhere(original: Any, replacement: Any) -> None:
    """Replace ``original`` in every loaded module that holds it (``from x import f`` copies too)."""
    for module in list(sys.modules.values()):
        for name, value in list(getattr(module, "__dict__", {}).items()):
            if value is original:
                setattr(module, name, replacement)


def _is_property(module: str, qualname: str) -> bool:
    owner: Any = sys.modules.get(module)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part, None)
    return isinstance(owner, type) and isinstance(owner.__dict__.get(name), property)


class BodyCalls:
    """The distinct calls into our code made directly from the command's body (the cog's ``add``)."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self._seen: set[int] = set()

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_back is None or frame.f_back.f_code.co_name != "add":
            return
        if not frame.f_back.f_code.co_filename.endswith("_cog.py"):
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith(("bot.", "cogs.")) or id(frame) in self._seen:
            return  # discord.py, or a coroutine resumed rather than called
        self._seen.add(id(frame))
        if not _is_property(module, frame.f_code.co_qualname):  # reading config.display_zones is no call
            self.calls.append(f"{module}.{frame.f_code.co_qualname}")


async def main() -> None:
    logging.disable(logging.WARNING)
    from bot.demo.botenv import BotEnv

    seen: dict[str, Counter[str]] = defaultdict(Counter)
    body = BodyCalls()
    with tempfile.TemporaryDirectory() as tmp:
        async with BotEnv(database_url=f"sqlite+aiosqlite:///{Path(tmp) / 'hops.db'}") as env:
            env.arxiv.add("2401.12345", "AutoEnv: Automated Environments")
            await (
                await env.invoke("setup announcements", {"channel": env.announcements}, member=env.admin)
            ).final()
            for label, (module_name, name) in COUNTED.items():
                original = getattr(sys.modules[module_name], name)
                _patch_everywhere(original, _counting(label, original, seen))
            factory = env.bot.session_factory

            def counted_factory(*args: Any, **kwargs: Any) -> Any:
                seen[_task()]["store sessions opened (session_factory())"] += 1
                return factory(*args, **kwargs)

            env.bot.session_factory = counted_factory
            for name in ("SessionsCog", "SeriesCog"):  # the flows' context holds the store too
                cog: Any = env.bot.get_cog(name)
                ctx = cog.context
                ctx = (
                    replace(ctx, store=counted_factory)
                    if name == "SessionsCog"
                    else replace(ctx, sessions=replace(ctx.sessions, store=counted_factory))
                )
                cog.context = ctx
                if name == "SeriesCog":
                    cog.background.ctx = ctx
            sys.setprofile(body.profile)
            try:
                result = await env.invoke("session add", {**OPTIONS, "presenter": env.members[0]})
                reply = await result.final()
                listeners = [t for t in asyncio.all_tasks() if t.get_name().startswith("discord.py: on_")]
                await asyncio.gather(*listeners, return_exceptions=True)  # what session_saved set off
            finally:
                sys.setprofile(None)
            print(f"reply: {reply.text.splitlines()[0]}")
    command = [name for name in seen if name.startswith("CommandTree")]
    listeners = [name for name in seen if name not in command]
    labels = [
        *COUNTED,
        "store sessions opened (session_factory())",
        "display-zone parses (GuildConfig.display_zones)",
    ]
    for title, tasks in (("the command", command), ("session_saved listeners etc.", listeners)):
        total = Counter[str]()
        for name in tasks:
            total.update(seen[name])
        print(f"{title} ({', '.join(sorted(tasks)) or 'none'}):")
        for label in labels:
            print(f"  {label:<44} {total[label]}")
        for label in sorted(total):
            if ": " in label:
                print(f"      {total[label]} × {label}")
    print("calls from the command body into our code, in order:")
    for call in body.calls:
        print(f"  {call}")
    service = [c for c in body.calls if not c.endswith(("organizer_begin", "shown", "reply_with_card"))]
    print(
        f"service calls between the organizer check and the reply: {len(service)}; "
        f"returns of control to the cog between them: {max(0, len(service) - 1)}"
    )


if __name__ == "__main__":
    asyncio.run(main())
