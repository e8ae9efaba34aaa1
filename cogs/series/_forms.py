"""/series add without options: a form with the name, the day as a select, the time, the first date and
every other week as a checkbox (five fields, each in a Label)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import discord

from bot import when
from bot.client import Interaction
from bot.services.series import rules
from bot.timeutil import WEEKDAYS
from bot.views import PaperclubModal

AddSeries = Callable[..., Awaitable[None]]
"""What a submitted form calls: the cog's handler of /series add, given the interaction and the values."""


class AddSeriesModal(PaperclubModal, title="Add a weekly series"):
    """The series' name, day, time, first date and cadence; checked by the same draft as the command."""

    def __init__(self, club_zone: str, add_series: AddSeries, *, timezone: str | None = None) -> None:
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
            timezone=self.zone,
            every=2 if self.fortnightly.value else 1,
            first=self.first.value.strip() or None,
        )
