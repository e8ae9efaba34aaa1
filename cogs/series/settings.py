"""The series' settings in /setup (the commands are declared in cogs/setup/_cog.py, which calls these):
``/setup series_horizon weeks`` (default 8) and ``/setup series_nudge days`` (default 7, 0: off). Kept in
the feature's own table (``series_settings``), with the organizers' thread the nudges go to."""

from __future__ import annotations

from bot.client import Interaction, PaperclubBot
from bot.permissions import require_guild_id
from bot.replies import send_ephemeral
from bot.services.series import store as svc
from cogs.series._background import SeriesBackground
from cogs.series._cog import SeriesCog


def _describe(settings: svc.Settings) -> str:
    nudge = f"{settings.nudge_days} days before an open week" if settings.nudge_days else "off"
    thread = (
        f" in <#{settings.organizer_thread_id}>"
        if settings.organizer_thread_id and settings.nudge_days
        else ""
    )
    return f"{settings.horizon_weeks} weeks ahead · nudges {nudge}{thread}"


def show_field(settings: svc.Settings) -> str:
    """The "Series" line of /setup show (which reads the settings with the others, in one statement)."""
    return _describe(settings)


def _background(bot: PaperclubBot) -> SeriesBackground | None:
    cog = bot.get_cog(SeriesCog.__cog_name__)
    return cog.background if isinstance(cog, SeriesCog) else None


async def set_horizon(interaction: Interaction, weeks: int) -> None:
    """/setup series_horizon: save it, and give the series the weeks it now reaches."""
    bot, guild_id = interaction.client, require_guild_id(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    async with bot.session_factory() as session, session.begin():
        settings = await svc.set_horizon(session, guild_id, weeks, bot.clock.now())
    background = _background(bot)
    if background is not None:
        await background.run_horizons([guild_id])  # the weeks the longer horizon now reaches
    await send_ephemeral(interaction, f"Saved. Series: {_describe(settings)}.")


async def set_nudge_days(interaction: Interaction, days: int) -> None:
    """/setup series_nudge: save it, and plan the nudges again."""
    bot, guild_id = interaction.client, require_guild_id(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    async with bot.session_factory() as session, session.begin():
        settings = await svc.set_nudge_days(session, guild_id, days, bot.clock.now())
    background = _background(bot)
    if background is not None:
        await background.refresh_guild(guild_id)  # the nudges move to the new day before each week
    await send_ephemeral(interaction, f"Saved. Series: {_describe(settings)}.")
