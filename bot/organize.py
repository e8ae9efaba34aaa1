"""/organize: the organizers' one root command, hidden from members; features attach their subgroups."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

NAME = "organize"
DESCRIPTION = "Organizers: sessions, series, reminders, reading lists, suggestions and papers"
# Application Commands, "Permissions": default_member_permissions is set on top-level commands only.
PERMISSIONS = discord.Permissions(manage_events=True)


def organizer_group(name: str, description: str) -> app_commands.Group:
    """A feature's ``/organize <name>``, declared at module level until :meth:`OrganizerCommands.attach`."""
    return app_commands.Group(name=name, description=description)


class OrganizerCommands:
    """The bot's ``/organize`` root: on the tree while some feature's subgroup is attached."""

    def __init__(self, tree: app_commands.CommandTree[Any]) -> None:
        self.tree = tree
        self.root = app_commands.guild_only(
            app_commands.Group(name=NAME, description=DESCRIPTION, default_permissions=PERMISSIONS)
        )

    def attach(self, group: app_commands.Group, cog: Any) -> app_commands.Group:
        """Add ``cog``'s copy of ``group`` under the root (in cog_load); returns it for :meth:`detach`."""
        attached = group._copy_with(parent=self.root, binding=cog)
        self.root.add_command(attached)
        if self.tree.get_command(NAME) is None:
            self.tree.add_command(self.root)
        return attached

    def detach(self, attached: app_commands.Group) -> None:
        """Take the subgroup back (in cog_unload); the root leaves the tree with its last subgroup."""
        self.root.remove_command(attached.name)
        if not self.root.commands:
            self.tree.remove_command(NAME)
