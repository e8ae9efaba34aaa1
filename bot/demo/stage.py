"""What a tour's steps use (:class:`Demo`): scenes, printing what each person sees, finding what they need."""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from datetime import datetime
from logging.handlers import BufferingHandler
from typing import Any, NoReturn, TextIO

from sqlalchemy import Select, select

from bot import timeutil
from bot.demo import readable
from bot.demo.botenv import BotEnv
from bot.services.sessions.info import SessionInfo
from bot.services.sessions.store import get_session
from db.models import ClubSession
from standin.interactions import InteractionResult, Response
from standin.render import render_components, render_embed, render_message, render_modal
from standin.state import Channel, Json, Member, Message, Role, User

RULE = "─" * 78


class SceneFailed(Exception):
    """A scene could not show what it is about; the demo stops and names it."""


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
    """What a tour step uses: the env's helpers, plus scenes, printing what people see, and finding things."""

    def __init__(self, env: BotEnv, out: TextIO = sys.stdout) -> None:
        self.env = env
        self.out = out
        self.scene = "before the first scene"
        self.scenes = 0
        self._shown = True
        # the bot's ERROR log lines since the scene began: a scene whose work failed in the background fails
        self._errors = BufferingHandler(sys.maxsize)
        self._errors.setLevel(logging.ERROR)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    # -- scenes ---------------------------------------------------------------------------------------------
    def watch_log(self, on: bool) -> None:
        """Start (or stop) watching the bot's log for errors: one logged during a scene fails it."""
        if on:
            logging.getLogger().addHandler(self._errors)
        else:
            logging.getLogger().removeHandler(self._errors)

    def narrate(self, text: str) -> None:
        """End the scene being played (see :meth:`end_scene`) and start the next, printing its heading."""
        self.end_scene()
        self.scene = text
        self.scenes += 1
        self._shown = False
        print(f"\n{RULE}\n▶ {text}\n{RULE}", file=self.out)

    def end_scene(self) -> None:
        """Fail the scene if it showed nothing or the bot logged an error during it."""
        if not self._shown:
            self.fail("showed nothing")
        if self._errors.buffer:
            record = self._errors.buffer[0]
            self._errors.buffer.clear()
            self.fail(f"made the bot log an error: {record.name}: {record.getMessage()}")

    def fail(self, problem: str) -> NoReturn:
        """Stop the demo: this scene could not do what it shows."""
        raise SceneFailed(f"the scene “{self.scene}” {problem}")

    # -- printing -------------------------------------------------------------------------------------------
    def _print(self, text: str) -> None:
        self._shown = True
        print(text, file=self.out)

    def render(self, message: Message) -> str:
        """A message as its reader sees it (Discord's time markup in the reader's zone)."""
        return render_message(readable.message(message, self.env.clock.now()), self.env.standin.state)

    def render_response(self, response: Response) -> str:
        """Render an interaction response (message, modal, deferral or reply) as indented text."""
        response = readable.response(response, self.env.clock.now())
        state = self.env.standin.state
        if response.message is not None:
            return render_message(response.message, state)
        if response.modal is not None:
            return "\n".join("  " + line for line in render_modal(response.modal, state).splitlines())
        if response.deferred:
            return "  (thinking…)"
        lines = [response.content] if response.content else []
        for embed in response.embeds:
            lines.extend(render_embed(embed, state))
        lines.extend(render_components(response.components, state))
        return "\n".join("  " + line for line in lines)

    def show(self, thing: Message | str, title: str | None = None) -> None:
        """Print a message or text, with an optional title."""
        if title:
            self._print(f"\n  — {title} —")
        self._print(self.render(thing) if isinstance(thing, Message) else thing)

    def show_pings(self, message: Message) -> None:
        """Print a message and whom it pinged, from what Discord recorded (its mentions), not from its text."""
        self.show(message)
        state = self.env.standin.state
        payload = message.payload
        pinged = [f"@{state.users[int(u['id'])].display_name}" for u in payload.get("mentions") or []]
        guild = state.guild_of(state.channels[message.channel_id])
        if guild is not None:
            pinged += [f"@{guild.roles[int(r)].name}" for r in payload.get("mention_roles") or []]
        if payload.get("mention_everyone"):
            pinged.append("@everyone")
        self._print(f"  (pinged: {', '.join(pinged) if pinged else 'nobody'})")

    def club_time(self, moment: datetime) -> str:
        """A time in the club's first zone, as the narration says it: 'Tuesday 1 December, 9:00 AM PT'."""
        return timeutil.format_club_time(moment, timeutil.DEFAULT_DISPLAY_ZONES[:1])

    # -- acting ---------------------------------------------------------------------------------------------
    async def settle(self) -> None:
        """Wait (on their tasks) for the last step's background work: deletions, reminders, suggestions, series."""
        for name in ("PrivacyCog", "RemindersCog", "SuggestionsCog", "SeriesCog"):
            cog: Any = self.env.bot.get_cog(name)
            if cog is not None:
                await (cog.background if name == "SeriesCog" else cog).settle()

    async def fast_forward(self, to: datetime) -> int:
        """Move the clock to ``to`` and let what fell due go out; the :meth:`mark` from before the move."""
        mark = self.mark()
        await self.env.clock.set(to)
        await self.settle()
        return mark

    async def _answered(self, result: InteractionResult, *, quiet: bool = False) -> InteractionResult:
        """Wait for the answer (quiet or not: the next step must see what this one did), print it, settle."""
        response = await result.response()
        if response.deferred:
            final = await result.final()
            if not quiet:
                self._print(self.render(final))
        elif not quiet:
            self._print(self.render_response(response))
        if result.errors:
            self.fail(f"had the bot's answer refused by Discord: {result.errors[0]}")
        await self.settle()
        return result

    async def invoke(
        self, name: str, options: Mapping[str, Any] | None = None, *, member: Any = None, quiet: bool = False
    ) -> InteractionResult:
        """Run a slash command, printing who used it and the answer unless ``quiet``."""
        member = member or self.env.organizer
        args = " ".join(f"{k}:{_format_option(v)}" for k, v in (options or {}).items())
        if not quiet:
            self._print(f"\n{_who(member)} uses /{name} {args}".rstrip())
        result = await self.env.invoke(name, options, member=member)
        return await self._answered(result, quiet=quiet)

    async def click(
        self, message: Message | int, custom_id: str, *, member: Any = None, label: str = ""
    ) -> InteractionResult:
        """Press a component, printing who pressed it and the answer."""
        member = member or self.env.organizer
        self._print(f"\n{_who(member)} presses [{label or custom_id}]")
        return await self._answered(await self.env.click(message, custom_id, member=member))

    async def press(self, message: Message, prefix: str, *, member: Any = None) -> InteractionResult:
        """Press the button whose custom id starts with ``prefix`` (its label printed as the member sees it)."""
        button = self.button(message, prefix)
        emoji = (button.get("emoji") or {}).get("name")
        label = " ".join(str(part) for part in (emoji, button.get("label")) if part)
        return await self.click(message, button["custom_id"], member=member, label=label)

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
        self._print(self.render(message))
        await self.settle()
        return message

    async def submit_modal(self, source: Any, values: Mapping[str, Any], *, member: Any = None) -> Any:
        """Submit a modal, printing what was filled in and the answer."""
        member = member or self.env.organizer
        self._print(
            f"\n{_who(member)} fills in the form: " + ", ".join(f"{k}={v!r}" for k, v in values.items())
        )
        return await self._answered(await self.env.submit_modal(source, values, member=member))

    # -- finding what a scene needs -------------------------------------------------------------------------
    async def stored(self, statement: Select[Any], problem: str) -> Any:
        """The first value ``statement`` reads from the store; the scene fails with ``problem`` if none."""
        async with self.env.bot.session_factory() as db:
            found = await db.scalar(statement)
        if not found:
            self.fail(problem)
        return found

    async def session_titled(self, title: str) -> SessionInfo:
        """The newest session of the demo's server with this title, from the store."""
        found = await self.stored(
            select(ClubSession.id)
            .where(ClubSession.guild_id == self.env.guild.id, ClubSession.title == title)
            .order_by(ClubSession.id.desc())
            .limit(1),
            f"found no session titled “{title}” in the store",
        )
        return await self.session(found)

    async def session(self, session_id: int) -> SessionInfo:
        """A session as the store has it now."""
        async with self.env.bot.session_factory() as db:
            return await get_session(db, self.env.guild.id, session_id)

    def button(self, message: Message, prefix: str) -> Json:
        """The button on ``message`` whose custom id starts with ``prefix`` (a link button: whose url does)."""
        found = next(
            (b for b in message.buttons if str(b.get("custom_id") or b.get("url") or "").startswith(prefix)),
            None,
        )
        if found is None:
            self.fail(f"found no button “{prefix}…” on the message")
        return found

    def message(self, message_id: int | None, what: str) -> Message:
        """The stand-in's message with this id (``what`` names it if there is none)."""
        found = self.env.standin.state.messages.get(message_id) if message_id else None
        if found is None or found.deleted:
            self.fail(f"found no {what}")
        return found

    def channel(self, channel_id: int | None, what: str) -> Channel:
        """The stand-in's channel (or thread) with this id."""
        found = self.env.standin.state.channels.get(channel_id) if channel_id else None
        if found is None:
            self.fail(f"found no {what}")
        return found

    def since(self, channel: Any, mark: int, problem: str) -> list[Message]:
        """The messages of ``channel`` (a channel or a member's DMs) posted after the :meth:`mark` ``mark``."""
        messages = (
            self.env.dm_messages(channel) if isinstance(channel, Member) else self.env.messages_in(channel)
        )
        found = [m for m in messages if m.id > mark]
        if not found:
            self.fail(problem)
        return found

    def mark(self) -> int:
        """A point in the stand-in's messages: :meth:`since` gives what came after it."""
        return max(self.env.standin.state.messages, default=0)
