"""The /series options: a series, one of its weeks, a weekday, a week's new time; each the text as typed, tidied."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from discord import app_commands

from bot import timeutil, when
from bot.client import Interaction
from bot.errors import BadInput
from bot.services.series import rules
from bot.services.series.changes import moved_start
from bot.services.series.store import series_choices
from bot.services.series.weeks import week_choices
from bot.transformers import OptionTransformer, WhenTransformer, guild_choices
from cogs.series._buttons import series_context


class _Text(OptionTransformer):
    """A string option given to the command with its spaces tidied (BadInput when empty)."""

    minimum = 1
    maximum = 100
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
