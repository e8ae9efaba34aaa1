"""`paperclub demo`: the bot against the local stand-in, a scripted tour, printed as each person sees it.

Each feature adds a tour module in `bot/demo/tours/` with `ORDER: int` and `async def tour(demo)`;
they run in ORDER on one guild, one store and one FakeClock, so later parts see what earlier parts made.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from bot.clock import FakeClock
from bot.demo import tours
from bot.demo.botenv import BotEnv
from bot.logs import setup_logging
from standin.interactions import InteractionResult, Response
from standin.render import render_components, render_embed, render_message
from standin.state import DISCORD_EPOCH_MS, Channel, Member, Message, Role, Snowflakes, User

RULE = "─" * 78
DEMO_PUBLIC_URL = "https://club.example.org"


class ClockSnowflakes(Snowflakes):
    """The stand-in's ids, timed by the demo's FakeClock instead of the real time: the same tour gives
    the same ids (and so the same links) on every run, and each id's time is the demo's time."""

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


def _who(member: Any) -> str:
    return f"@{getattr(member, 'display_name', None) or getattr(member, 'username', member)}"


def _format_option(value: Any) -> str:
    if isinstance(value, Member | User):
        return _who(value)
    if isinstance(value, Role):
        return f"@{value.name}"
    if isinstance(value, Channel):
        return f"#{value.name}"
    return str(value)


class Demo:
    """What a tour step uses: the env's helpers, plus narration and printing what people see."""

    def __init__(self, env: BotEnv, out: TextIO = sys.stdout) -> None:
        self.env = env
        self.out = out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    async def settle(self) -> None:
        """Wait until the work the last step set off in the background is done: the reminders cog's planning
        and sends, the suggestion posts' refreshes. Each waits on its own tasks (no sleeps), so the next
        step sees what this one did and the tour prints the same on every run."""
        reminders = self.env.bot.get_cog("RemindersCog")
        if reminders is not None:
            await reminders.settle()  # type: ignore[attr-defined]
        suggestions = self.env.bot.get_cog("SuggestionsCog")
        if suggestions is not None:
            await suggestions.actions.refresher.wait_idle()  # type: ignore[attr-defined]
        series = self.env.bot.get_cog("SeriesCog")
        if series is not None:
            await series.background.settle()  # type: ignore[attr-defined]

    def narrate(self, text: str) -> None:
        """Print a tour step's heading."""
        print(f"\n{RULE}\n▶ {text}\n{RULE}", file=self.out)

    def _print(self, text: str) -> None:
        print(text, file=self.out)

    def render_response(self, response: Response, viewer: Any = None) -> str:
        """Render an interaction response (message, modal, deferral or reply) as indented text."""
        if response.message is not None:
            return render_message(response.message, self.env.standin.state)
        if response.modal is not None:
            modal = response.modal
            labels = [
                c.get("label") or c.get("component", {}).get("label", "")
                for row in modal.get("components", [])
                for c in (row.get("components") or [row])
            ]
            return f"  [modal] {modal.get('title')}: " + ", ".join(str(label) for label in labels if label)
        if response.deferred:
            return "  (thinking…)"
        lines = [response.content] if response.content else []
        for embed in response.embeds:
            lines.extend(render_embed(embed, self.env.standin.state))
        lines.extend(render_components(response.components, self.env.standin.state))
        return "\n".join("  " + line for line in lines)

    def show(self, thing: Response | Message | str, title: str | None = None) -> None:
        """Print a message, response or text, with an optional title."""
        if title:
            self._print(f"\n  — {title} —")
        if isinstance(thing, Message):
            self._print(render_message(thing, self.env.standin.state))
        elif isinstance(thing, Response):
            self._print(self.render_response(thing))
        else:
            self._print(str(thing))

    async def invoke(
        self,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        member: Any = None,
        channel: Any = None,
        quiet: bool = False,
    ) -> InteractionResult:
        """Run a slash command, printing who used it and the answer unless ``quiet``."""
        member = member or self.env.organizer
        args = " ".join(f"{k}:{_format_option(v)}" for k, v in (options or {}).items())
        if not quiet:
            self._print(f"\n{_who(member)} uses /{name} {args}".rstrip())
        result = await self.env.invoke(name, options, member=member, channel=channel)
        # Quiet or not, the tour waits for the answer: the next step must see what this one did.
        response = await result.response()
        if response.deferred:
            final = await result.final()
            if not quiet:
                self._print(render_message(final, self.env.standin.state))
        elif not quiet:
            self._print(self.render_response(response))
        await self.settle()
        return result

    async def click(
        self, message: Message | int, custom_id: str, *, member: Any = None, label: str = ""
    ) -> Any:
        """Press a component, printing who pressed it and the answer."""
        member = member or self.env.organizer
        self._print(f"\n{_who(member)} presses [{label or custom_id}]")
        result = await self.env.click(message, custom_id, member=member)
        response = await result.response()
        if response.deferred:
            self._print(render_message(await result.final(), self.env.standin.state))
        else:
            self._print(self.render_response(response))
        await self.settle()
        return result

    async def message_command(self, name: str, message: Message, *, member: Any = None) -> InteractionResult:
        """A member right-clicks ``message`` → Apps → ``name``; prints what they see (a form, or a reply)."""
        member = member or self.env.organizer
        self._print(f"\n{_who(member)} right-clicks the message → Apps → {name}")
        result = await self.env.invoke_message_command(name, message, member=member)
        self._print(self.render_response(await result.response()))
        return result

    async def post_as(self, member: Any, channel: Any, text: str) -> Message:
        """A member posts ``text`` in ``channel``; prints it as the channel shows it."""
        message = await self.env.standin.post_as(member, channel, text)
        self._print(render_message(message, self.env.standin.state))
        await self.settle()
        return message

    async def submit_modal(self, source: Any, values: Mapping[str, Any], *, member: Any = None) -> Any:
        """Submit a modal, printing what was filled in and the answer."""
        member = member or self.env.organizer
        self._print(
            f"\n{_who(member)} fills in the form: " + ", ".join(f"{k}={v!r}" for k, v in values.items())
        )
        result = await self.env.submit_modal(source, values, member=member)
        response = await result.response()
        if response.deferred:
            self._print(render_message(await result.final(), self.env.standin.state))
        else:
            self._print(self.render_response(response))
        await self.settle()
        return result

    def show_channel(self, channel: Any, last: int = 1) -> None:
        """Print the last ``last`` messages of a channel."""
        for message in self.env.messages_in(channel)[-last:]:
            self._print(render_message(message, self.env.standin.state))

    def show_dms(self, member: Any, last: int = 1) -> None:
        """Print the last ``last`` messages of a member's DMs."""
        for message in self.env.dm_messages(member)[-last:]:
            self._print(render_message(message, self.env.standin.state))


async def run_demo(*, verbose: bool = False, out: TextIO = sys.stdout) -> int:
    """Run every tour against the stand-in on a throwaway SQLite store; return the exit code."""
    setup_logging("INFO" if verbose else "ERROR")
    if not verbose:
        logging.getLogger().setLevel(logging.ERROR)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="paperclub-demo-") as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'demo.db'}"
        print("paperclub demo — the bot against a local Discord stand-in (no token, no network)", file=out)
        # The website tour serves the club page on a free local port; links show the address a real club
        # would put behind its reverse proxy (PUBLIC_URL), so the tour prints the same text every run.
        env = BotEnv(database_url=url, settings_overrides={"web_port": 0, "public_url": DEMO_PUBLIC_URL})
        env.standin.state.ids = ClockSnowflakes(env.clock)
        async with env:
            demo = Demo(env, out)
            for module in discover_tours():
                await module.tour(demo)
    # The elapsed time goes to the log, not the tour: the same tour prints the same text on every run.
    logging.getLogger("paperclub.demo").info("demo finished in %.1f s", time.perf_counter() - started)
    print(f"\n{RULE}\nDemo finished.", file=out)
    return 0
