"""I'll present (on a week's announcement and card, and on the open-weeks message) and that message's select;
restart-proof, the ids in their custom_id."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.client import Interaction
from bot.errors import BadInput, NotAllowed
from bot.layouts import escape_line
from bot.permissions import require_guild_id
from bot.replies import send_ephemeral
from bot.services.series import actions
from bot.services.series.context import SeriesContext
from bot.services.sessions.info import SessionInfo
from bot.timeutil import format_club_time
from bot.views import PersistentButton, field, guarded

IN_SERVER_ONLY = "This button works in a server, not in DMs."


def series_context(interaction: Interaction) -> SeriesContext:
    """The series cog's flows' context (what it renders cannot import it back, so its items find it here)."""
    context = getattr(interaction.client.get_cog("SeriesCog"), "context", None)
    if not isinstance(context, SeriesContext):
        raise NotAllowed("The series are switched off on this bot right now.")
    return context


async def press_present(interaction: Interaction, session_id: int, *, series_id: int | None = None) -> None:
    """Present the week, or step down (a week picked from a series' select, ``series_id``, is only
    claimed); the week, the open weeks and the nudges follow."""
    guild_id = require_guild_id(interaction, IN_SERVER_ONLY)
    ctx = series_context(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    claim, zones = await actions.present(
        ctx,
        guild_id,
        session_id,
        interaction.user.id,
        interaction.user.display_name,
        now=interaction.client.clock.now(),
        series_id=series_id,
    )
    info = claim.session
    when = format_club_time(info.starts_at, zones)
    title = escape_line(info.title, 120)
    if claim.outcome == "claimed":
        text = (
            f"🎤 You present **{title}** on {when}. Thank you! The organizers see it on the series; tell them "
            "which paper you will present (or suggest one with `/suggest`). Press again to step down."
        )
    else:
        text = f"OK, you no longer present **{title}** ({when}); the week is open again."
    await send_ephemeral(interaction, text)


class PresentButton(PersistentButton, prefix="series:present"):
    """Claims the week for the presser, or gives it back when they present it."""

    session_id: int = field(r"\d{1,10}", int)
    label = "I'll present"
    emoji = "🙋"
    style = discord.ButtonStyle.success

    @classmethod
    def claim(cls, session_id: int, label: str | None = None) -> PresentButton:
        """An open week's button (``label``: the week's date, on the open-weeks message)."""
        return cls(session_id, label=label)

    @classmethod
    def step_down(cls, session_id: int) -> PresentButton:
        """The presenting member's button: they give the week back."""
        button = cls(session_id, label="Step down as presenter")
        button.item.style = discord.ButtonStyle.secondary
        button.item.emoji = None
        return button

    async def pressed(self, interaction: Interaction) -> None:
        """Present the week, or step down."""
        await press_present(interaction, self.session_id)


class ClaimWeekSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"series:claim:(?P<series_id>\d{1,10})"
):
    """The open-weeks message's select: pick a week to present it (the series id in its custom_id, so it
    works after a restart; the picked week is checked to be one of that series' open weeks)."""

    def __init__(self, series_id: int, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"series:claim:{series_id}",
                placeholder="Or pick the week you'll present",
                options=options or [discord.SelectOption(label="-", value="0")],
            )
        )
        self.series_id = series_id

    @classmethod
    def of(cls, series_id: int, weeks: list[tuple[Any, str]]) -> ClaimWeekSelect:
        """The select offering ``weeks`` (WeekInfo, label) of the series."""
        options = [discord.SelectOption(label=label, value=str(week.session.id)) for week, label in weeks]
        return cls(series_id, options)

    @classmethod
    async def from_custom_id(  # type: ignore[override]
        cls, interaction: Interaction, item: discord.ui.Select[Any], match: re.Match[str], /
    ) -> ClaimWeekSelect:
        """Rebuild the select from a pick (options are not needed to read the value)."""
        return cls(int(match["series_id"]))

    async def callback(self, interaction: Interaction) -> None:  # type: ignore[override]
        """Claim the picked week, through the one error handler."""
        await guarded(interaction, lambda: self.picked(interaction))

    async def picked(self, interaction: Interaction) -> None:
        """Claim the picked week, if it is one of this series' weeks."""
        values = self.item.values
        if len(values) != 1 or not values[0].isdigit() or len(values[0]) > 10:
            raise BadInput("Pick one of the weeks in the list.")
        await press_present(interaction, int(values[0]), series_id=self.series_id)


def present_button(info: SessionInfo) -> PresentButton | None:
    """The button for a week's announcement or card: I'll present while open, Step down while a member
    presents (only they may press it); none for a session of no series or with a guest presenter."""
    if info.series_id is None or info.is_cancelled:
        return None
    if info.presenter_id is None and not info.presenter_name:
        return PresentButton.claim(info.id)
    if info.presenter_id is not None:
        return PresentButton.step_down(info.id)
    return None
