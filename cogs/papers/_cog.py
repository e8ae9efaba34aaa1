"""/paper: its subcommands are built in their own modules (``_resolve.py``) and added to the group here."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.client import PaperclubBot
from cogs.papers._resolve import resolve_command


@app_commands.guild_only()
class PapersCog(commands.GroupCog, group_name="paper", group_description="The club's papers"):
    """The /paper group."""

    def __init__(self, bot: PaperclubBot) -> None:
        self.bot = bot
        super().__init__()
        self.__cog_app_commands_group__.add_command(resolve_command(bot))  # type: ignore[union-attr]
