"""The /series options, I'll present, the open-weeks message's old select, and the /organize series add form."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, ClassVar

import discord
from discord import app_commands

from bot import timeutil, when
from bot.client import Interaction
from bot.errors import BadInput, NotAllowed
from bot.layouts import escape_line
from bot.permissions import require_guild_id
from bot.replies import send_ephemeral
from bot.services.series import rules
from bot.services.series.changes import moved_start
from bot.services.series.presenters import present
from bot.services.series.publishing import SeriesContext
from bot.services.series.store import series_choices
from bot.services.series.weeks import week_choices
from bot.services.sessions.info import SessionInfo
from bot.timeutil import WEEKDAYS, format_club_time
from bot.transformers import OptionTransformer, WhenTransformer, guild_choices
from bot.views import PaperclubModal, PersistentButton, field, guarded


def series_context(interaction: Interaction) -> SeriesContext:
    """The series cog's flows' context (what it renders cannot import it back, so its items find it here)."""
    context = getattr(interaction.client.get_cog("SeriesCog"), "context", None)
    if not isinstance(context, SeriesContext):
        raise NotAllowed("The series are switched off on this bot right now.")
    return context


async def press_present(interaction: Interaction, session_id: int, *, series_id: int | None = None) -> None:
    """Present the week, or step down (a week picked from a series' select, ``series_id``, is only claimed)."""
    guild_id = require_guild_id(interaction, "This button works in a server, not in DMs.")
    ctx = series_context(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    claimed, info, zones = await present(
        ctx,
        guild_id,
        session_id,
        interaction.user.id,
        interaction.user.display_name,
        now=interaction.client.clock.now(),
        series_id=series_id,
    )
    when = format_club_time(info.starts_at, zones)
    title = escape_line(info.title, 120)
    if claimed:
        text = (
            f"🎤 You present **{title}** on {when}. Thank you! The organizers see it on the series; tell them "
            "which paper you will present (or suggest one with `/suggest paper`). Press again to step down."
        )
    else:
        text = f"OK, you no longer present **{title}** ({when}); the week is open again."
    await send_ephemeral(interaction, text)


class PresentButton(PersistentButton, prefix="series:present"):
    """Claims the week for the presser, or gives it back when they present it."""

    session_id: int = field(r"\d{1,10}", int)
    label = "I'll present"
    emoji = "🙋"
    style = discord.ButtonStyle.primary  # an offer to make, not a green "done"

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
    """The select of older open-weeks messages: a pick from one not yet redrawn still claims the week."""

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
    """A week's button: I'll present while open, Step down while a member presents; else none."""
    if info.series_id is None or info.is_cancelled:
        return None
    if info.presenter_id is not None:
        return PresentButton.step_down(info.id)
    return None if info.presenter_name else PresentButton(info.id)


class AddSeriesModal(PaperclubModal, title="Add a weekly series"):
    """The series' name, day, time, first date and cadence; checked by the same draft as the command."""

    def __init__(
        self, club_zone: str, add_series: Callable[..., Awaitable[None]], *, timezone: str | None = None
    ) -> None:
        super().__init__(custom_id="series:modal:add", timeout=900)
        self.add_series = add_series
        self.zone = timezone
        self.name = discord.ui.TextInput[AddSeriesModal](custom_id="name", max_length=rules.MAX_NAME)
        self.day = discord.ui.Select[AddSeriesModal](
            custom_id="day",
            placeholder="The weekday it meets on",
            options=[discord.SelectOption(label=d.title(), value=d) for d in WEEKDAYS],
        )
        self.time = discord.ui.TextInput[AddSeriesModal](
            custom_id="time", placeholder="9:30am or 17:30", max_length=when.MAX_CLOCK_TEXT
        )
        self.first = discord.ui.TextInput[AddSeriesModal](
            custom_id="first", required=False, placeholder="2026-12-03", max_length=rules.MAX_DATE_TEXT
        )
        self.fortnightly = discord.ui.Checkbox[AddSeriesModal](custom_id="every_other_week")
        zone = timezone or club_zone
        for text, description, item in (
            ("Name", "Each week's title until it gets its own topic", self.name),
            ("Day", None, self.day),
            ("Time", f"Wall-clock time in {zone}"[:100], self.time),
            ("First date (optional)", "Default: the next such day", self.first),
            ("Every other week", "Leave it unticked for every week", self.fortnightly),
        ):
            self.add_item(discord.ui.Label(text=text, description=description, component=item))

    async def submitted(self, interaction: Interaction) -> None:
        await self.add_series(
            interaction,
            name=self.name.value,
            day=(self.day.values or [""])[0],
            time=self.time.value,
            zone=self.zone,
            every=2 if self.fortnightly.value else 1,
            first=self.first.value.strip() or None,
        )


class _Text(OptionTransformer):
    """A string option given to the command with its spaces tidied (BadInput when empty)."""

    minimum = 1
    what: ClassVar[str] = "a value"

    async def transform(self, interaction: Interaction, value: Any) -> str:
        text = " ".join(str(value).split())
        if not text:
            raise BadInput(f"Give {self.what}.")
        return text


class SeriesTransformer(_Text):
    maximum = rules.MAX_NAME  # its number, or its name
    what = "a series (pick one from the list)"

    async def autocomplete(  # type: ignore[override]  # discord.py types `value` loosely
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        return await guild_choices(interaction, partial(series_choices, current=str(value)[:100]))


class WeekTransformer(_Text):
    """A date of the series given in the `series` option (its coming weeks as choices)."""

    maximum = rules.MAX_DATE_TEXT
    what = "a date, e.g. 2026-12-24"

    async def autocomplete(  # type: ignore[override]
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        ref = getattr(interaction.namespace, "series", None)
        now = interaction.client.clock.now()
        query = partial(week_choices, ref=str(ref) if ref else None, current=str(value)[:40], now=now)
        return await guild_choices(interaction, query)


class MoveWhenTransformer(WhenTransformer):
    """`when` of /organize series move, previewed as the move reads it, in the series' zone."""

    async def preview(self, interaction: Interaction, text: str) -> str:
        ref = getattr(interaction.namespace, "series", None)
        week = getattr(interaction.namespace, "date", None)
        if interaction.guild_id is None or not ref or not week:
            return await super().preview(interaction, text)
        now = interaction.client.clock.now()
        store = series_context(interaction).store
        start, config = await moved_start(store, interaction.guild_id, str(ref), str(week), text, now)
        return self.club_time(start, text, config, now)


class WeekdayTransformer(_Text):
    maximum = 20
    what = "a day of the week"

    async def autocomplete(  # type: ignore[override]
        self, interaction: Interaction, value: int | float | str
    ) -> list[app_commands.Choice[str]]:
        """The seven days, those starting with what was typed first."""
        typed = str(value).strip().casefold()
        days = sorted(
            (w.title() for w in timeutil.WEEKDAYS), key=lambda d: not d.casefold().startswith(typed)
        )
        return [app_commands.Choice(name=d, value=d) for d in days]


SeriesOption = app_commands.Transform[str, SeriesTransformer]
WeekOption = app_commands.Transform[str, WeekTransformer]
WeekdayOption = app_commands.Transform[str, WeekdayTransformer]
MoveWhen = app_commands.Transform[str, MoveWhenTransformer]
Name = app_commands.Range[str, 1, rules.MAX_NAME]
Clock = app_commands.Range[str, 1, when.MAX_CLOCK_TEXT]
Zone = app_commands.Range[str, 1, timeutil.MAX_ZONE_TEXT]
DateText = app_commands.Range[str, 1, rules.MAX_DATE_TEXT]
# `every` takes up to a year, so that a value other than 1 or 2 reaches the bot and gets its reason.
Every = app_commands.Range[int, 1, 52]
Reason = app_commands.Range[str, 1, rules.MAX_SKIP_REASON]
