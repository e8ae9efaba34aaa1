"""The series' settings in /setup (declared in cogs/setup/_cog.py): series_horizon and series_nudge."""

from __future__ import annotations

from bot.client import Interaction
from bot.permissions import require_guild_id
from bot.replies import send_ephemeral
from bot.services.series import publishing
from bot.services.series.store import Settings
from cogs.series._cog import SeriesCog
from cogs.series._render import series_of


def show_field(settings: Settings) -> str:
    """The "Series" line of /setup show (which reads the settings with the others, in one statement)."""
    nudge = f"{settings.nudge_days} days before an open week" if settings.nudge_days else "off"
    thread = (
        f" in <#{settings.organizer_thread_id}>"
        if settings.organizer_thread_id and settings.nudge_days
        else ""
    )
    return f"{settings.horizon_weeks} weeks ahead · nudges {nudge}{thread}"


async def set_horizon(interaction: Interaction, weeks: int) -> None:
    """/setup series_horizon: save it, and give the series the weeks it now reaches."""
    bot, guild_id = interaction.client, require_guild_id(interaction)
    await interaction.response.defer(ephemeral=True, thinking=True)
    settings = await publishing.change_horizon(series_of(bot), guild_id, weeks, bot.clock.now())
    if isinstance(cog := bot.get_cog(SeriesCog.__cog_name__), SeriesCog):
        await cog.background.run_horizons([guild_id])
    await send_ephemeral(interaction, f"Saved. Series: {show_field(settings)}.")


async def set_nudge_days(interaction: Interaction, days: int) -> None:
    """/setup series_nudge: save it, and plan the nudges again."""
    bot, guild_id, now = interaction.client, require_guild_id(interaction), interaction.client.clock.now()
    await interaction.response.defer(ephemeral=True, thinking=True)
    settings = await publishing.change_nudge_days(series_of(bot), guild_id, days, now)
    await send_ephemeral(interaction, f"Saved. Series: {show_field(settings)}.")
