"""A session's card with its buttons and forms; other features' come through :func:`announcement_buttons`."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any
from weakref import WeakKeyDictionary

import discord
from discord.utils import escape_markdown

from bot import timeutil
from bot.client import Interaction, PaperclubBot
from bot.errors import NotAllowed
from bot.layouts import link_button
from bot.papers import MAX_URL_LENGTH
from bot.permissions import guild_config_for, member_is_organizer, require_guild_id
from bot.replies import one_line, send_ephemeral
from bot.services.calendars import ics
from bot.services.sessions import members, publish
from bot.services.sessions.events import SessionsContext
from bot.services.sessions.info import SessionInfo
from bot.text import CONTENT_LIMIT, cut
from bot.timeutil import DisplayZone
from bot.views import PaperclubModal, PaperclubView, PersistentButton, field
from cogs.sessions import _render as render
from db.models.sessions import MAX_QUESTION

IN_SERVER_ONLY = "This button works in a server, not in DMs."
NAMED, ANONYMOUS = "named", "anonymous"
# (guild_id, session_id or None for every session): what the presenter gets changed (the reminders hear it)
NOTES_CHANGED = "session_presenter_notes"
Item = discord.ui.Item[Any]


class AnnouncementButtons:
    """The buttons other features registered on one bot: for coming sessions, or links kept on every one."""

    def __init__(self) -> None:
        self.coming: list[Callable[[SessionInfo], Item | None]] = []
        self.links: list[Callable[[SessionInfo], Awaitable[Item | None]]] = []


_REGISTRIES: WeakKeyDictionary[PaperclubBot, AnnouncementButtons] = WeakKeyDictionary()


def announcement_buttons(bot: PaperclubBot) -> AnnouncementButtons:
    """The bot's registry."""
    return _REGISTRIES.setdefault(bot, AnnouncementButtons())


def sessions_context(interaction: Interaction) -> SessionsContext:
    """The sessions cog's context (its buttons work while it is loaded)."""
    context = getattr(interaction.client.get_cog("SessionsCog"), "context", None)
    if not isinstance(context, SessionsContext):
        raise NotAllowed("Sessions are switched off on this bot right now.")
    return context


def _title(title: str) -> str:
    return escape_markdown(one_line(title, 150))


class RemindMeButton(PersistentButton, prefix="session:remind"):
    """Toggles the presser's reminder for the session."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Remind me"
    emoji = "⏰"
    style = discord.ButtonStyle.primary

    async def pressed(self, interaction: Interaction) -> None:
        """Toggle the reminder and say when the DM comes."""
        guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
        now = interaction.client.clock.now()
        reminded, info = await members.remind_me(
            sessions_context(interaction), guild_id, self.session_id, interaction.user.id, now
        )
        title = _title(info.title)
        if reminded.interested and not reminded.asked:
            text = (
                f"OK. You marked *Interested* on the Discord event of **{title}**, so I'll still DM you "
                "before it (once) until you unmark it."
            )
        elif reminded.asked:
            dm_at = info.starts_at - timedelta(minutes=members.DEFAULT_REMIND_BEFORE_MINUTES)
            text = (
                f"I'll remind you by DM an hour before **{title}**: {timeutil.discord_timestamp(dm_at, 'F')}. "
                "Press **Remind me** again to stop."
            )
        else:
            text = f"OK, no reminder for **{title}**."
        await send_ephemeral(interaction, text)


class CalendarButton(PersistentButton, prefix="session:ics"):
    """Sends the presser the session's .ics file."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Add to calendar"
    emoji = "📅"

    async def pressed(self, interaction: Interaction) -> None:
        """Send the .ics file, saying what it holds."""
        guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
        now = interaction.client.clock.now()
        store = sessions_context(interaction).store
        info, data = await ics.session_calendar(store, guild_id, self.session_id, now)
        if info.is_cancelled:
            hint = "This session is cancelled; open the file to remove it from your calendar."
        elif info.series_id is not None:
            hint = (
                "This week is part of a series: the file adds every week of it (skipped weeks left out, moved "
                "ones at their own time), and importing it again later updates them."
            )
        else:
            hint = "Open the file to add the session to your calendar (Google, Apple and Outlook read it)."
        file = discord.File(io.BytesIO(data), filename=ics.session_filename(info))
        await send_ephemeral(interaction, hint, file=file)


# ---------------------------------------------------------------- what members leave for the presenter


def recording_text(choice: members.RecordingChoice) -> str:
    """The answer to either recording button."""
    title = _title(choice.title)
    if choice.out and choice.always:
        state = f"You stay out of the recording of **{title}**, and of every session here."
    elif choice.always:
        state = (
            f"You stay out of every recording here, **{title}** included. "
            "*Keep me out* changes nothing while that is on."
        )
    elif choice.out:
        state = (
            f"You stay out of the recording of **{title}**: the presenter gets your name before it starts."
        )
    else:
        state = f"OK, you are not kept out of the recording of **{title}**."
    return f"{state}\nOnly the presenter and the organizers see who asked; it is deleted a week after the session."


Toggle = Callable[[members.Store, int, int, int, str, datetime], Awaitable[members.RecordingChoice]]


async def _recording_press(interaction: Interaction, toggle: Toggle, session_id: int, *, every: bool) -> None:
    """Either recording button: the member's choice toggled, the reminders told, the answer only theirs."""
    guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
    user, now = interaction.user, interaction.client.clock.now()
    store = sessions_context(interaction).store
    choice = await toggle(store, guild_id, session_id, user.id, user.display_name, now)
    interaction.client.dispatch(NOTES_CHANGED, guild_id, None if every else session_id)
    always = AlwaysOutButton(
        choice.session_id, label="Stop keeping me out of every recording" if choice.always else None
    )
    await send_ephemeral(
        interaction, recording_text(choice), view=PaperclubView(timeout=None).add_item(always)
    )


class AlwaysOutButton(PersistentButton, prefix="session:outall"):
    """The member's standing choice: out of every recording of the server, or not any more."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Always keep me out"

    async def pressed(self, interaction: Interaction) -> None:
        """Toggle the standing choice."""
        await _recording_press(interaction, members.keep_out_always, self.session_id, every=True)


class KeepOutButton(PersistentButton, prefix="session:out"):
    """Keeps the presser out of the session's recording, or takes that back."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Keep me out of the recording"
    emoji = "🙈"

    async def pressed(self, interaction: Interaction) -> None:
        """Toggle this session's choice."""
        await _recording_press(interaction, members.keep_out, self.session_id, every=False)


class AskModal(PaperclubModal, title="Ask the presenter"):
    """The question, and whether the presenter sees who asked."""

    def __init__(self, session_id: int) -> None:
        super().__init__(custom_id=f"session:askform:{session_id}")
        self.session_id = session_id
        self.question = discord.ui.TextInput[AskModal](
            custom_id="question", style=discord.TextStyle.paragraph, max_length=MAX_QUESTION
        )
        self.add_item(
            discord.ui.Label(
                text="Your question",
                description="The presenter gets it by DM before the session",
                component=self.question,
            )
        )
        self.named = discord.ui.Select[AskModal](
            custom_id="named",
            options=[
                discord.SelectOption(label="Anonymous: no name", value=ANONYMOUS, default=True),
                discord.SelectOption(label="Show my name to the presenter", value=NAMED),
            ],
        )
        self.add_item(discord.ui.Label(text="Who asks", component=self.named))

    async def submitted(self, interaction: Interaction) -> None:
        """Store the question for the presenter."""
        guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
        named = (self.named.values or [ANONYMOUS])[0] == NAMED
        title = await members.ask(
            sessions_context(interaction).store,
            guild_id,
            self.session_id,
            interaction.user.id,
            text=self.question.value,
            name=interaction.user.display_name if named else None,
            now=interaction.client.clock.now(),
        )
        interaction.client.dispatch(NOTES_CHANGED, guild_id, self.session_id)
        who = "with your name" if named else "without your name"
        await send_ephemeral(
            interaction,
            f"Thanks: the presenter of **{_title(title)}** gets your question {who} before the session.",
        )


class AskButton(PersistentButton, prefix="session:ask"):
    """Opens the form for a question to the presenter."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Ask the presenter"
    emoji = "❓"

    async def pressed(self, interaction: Interaction) -> None:
        """Open the form."""
        require_guild_id(interaction, IN_SERVER_ONLY)
        await interaction.response.send_modal(AskModal(self.session_id))


def for_presenter_text(found: members.ForPresenter) -> str:
    """The organizers' private view of what the presenter gets (within one message)."""
    lines = [
        f"**{_title(found.title)}** (session #{found.session_id}, {timeutil.discord_timestamp(found.starts_at, 'F')})"
    ]
    if found.names:
        names = ", ".join(escape_markdown(name) for name in found.names)
        lines.append(f"🙈 Keep out of the recording ({len(found.names)}): {names}")
    else:
        lines.append("🙈 Nobody asked to stay out of the recording.")
    if not found.questions:
        lines.append("❓ No questions yet.")
    else:
        lines.append(f"❓ Questions ({len(found.questions)}):")
        for question in found.questions:
            who = escape_markdown(question.name) if question.name else "anonymous"
            lines.append(f"• {escape_markdown(cut(' '.join(question.text.split()), 300))} — {who}")
    text = "\n".join(lines)
    return text if len(text) <= CONTENT_LIMIT else cut(text, CONTENT_LIMIT - 40) + "\n…more than fit here."


# ---------------------------------------------------------------- the recording and notes, after the session


async def _organizer(interaction: Interaction) -> bool:
    if interaction.guild_id is None or not isinstance(interaction.user, discord.Member):
        return False
    return member_is_organizer(interaction.user, await guild_config_for(interaction))


class RecapModal(PaperclubModal, title="The recording and notes"):
    """Three links, each optional (at least one), as ``/organize session recap`` takes them."""

    def __init__(self, info: SessionInfo) -> None:
        super().__init__(custom_id=f"session:recapform:{info.id}")
        self.session_id = info.id
        self.links: dict[str, discord.ui.TextInput[RecapModal]] = {}
        for name, label, hint, value in (
            ("recording", "Recording link", "Where the recording is (https://…)", info.recording_url),
            ("notes", "Notes link", "The slides or notes (https://…)", info.notes_url),
            ("wiki", "Wiki link", "The papers' wiki page (https://…)", info.wiki_url),
        ):
            text = self.links[name] = discord.ui.TextInput[RecapModal](
                custom_id=name, required=False, max_length=MAX_URL_LENGTH, default=value
            )
            self.add_item(discord.ui.Label(text=label, description=hint, component=text))

    async def submitted(self, interaction: Interaction) -> None:
        """Save the links as ``/organize session recap`` does, checked again (a submit can be forged)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        value = {name: text.value.strip() or None for name, text in self.links.items()}
        info, warnings = await publish.submit_form(
            sessions_context(interaction),
            self.session_id,
            interaction.user.id,
            guild_id=interaction.guild_id,
            organizer=await _organizer(interaction),
            recording_url=value["recording"],
            notes_url=value["notes"],
            wiki_url=value["wiki"],
            now=interaction.client.clock.now(),
        )
        lines = ["Thank you: saved. The session's page and announcement link them"]
        lines[0] += ", and its thread says so." if info.thread_id is not None else "."
        lines.extend(warnings)
        await send_ephemeral(interaction, "\n".join(lines))


class RecapFormButton(PersistentButton, prefix="session:recap"):
    """Opens the form, for the session's presenter (also from a DM) or an organizer."""

    session_id: int = field(r"\d{1,10}", int)
    label = "Add the recording and notes"
    emoji = "🎬"

    async def pressed(self, interaction: Interaction) -> None:
        """Open the form for the presenter or an organizer; refuse anyone else."""
        info = await publish.form_session(
            sessions_context(interaction),
            self.session_id,
            interaction.user.id,
            guild_id=interaction.guild_id,
            organizer=await _organizer(interaction),
        )
        await interaction.response.send_modal(RecapModal(info))


BUTTONS = (RemindMeButton, CalendarButton, KeepOutButton, AlwaysOutButton, AskButton, RecapFormButton)


async def announcement_view(
    bot: PaperclubBot, info: SessionInfo, zones: Sequence[DisplayZone], now: datetime
) -> discord.ui.LayoutView:
    """The session's card with its buttons (fewer once cancelled or over; other features' registered ones)."""
    extras = announcement_buttons(bot)
    links = [item for make in extras.links if (item := await make(info)) is not None]
    items: list[Item] = []
    if info.has_ended(now):
        items = [RecapFormButton(info.id), *links] if not info.is_cancelled else links
    elif info.is_cancelled:
        items = [CalendarButton(info.id), *links]
    else:
        if info.signup_url and (signup := link_button(info.signup_url, "Sign up")) is not None:
            items.append(signup)
        if not info.has_started(now):
            items += [RemindMeButton(info.id), KeepOutButton(info.id)]
            if info.presenter_id is not None or info.presenter_name:
                items.append(AskButton(info.id))
            items.extend(item for make in extras.coming if (item := make(info)) is not None)
        items += [CalendarButton(info.id), *links]
    return render.session_card(info, zones, now=now, buttons=items).view()
