"""The papers a message names, for the message commands (its content as the member saw it, no intent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.errors import BadInput, NotAllowed, NotFound
from bot.papers import find_paper_links
from bot.text import cut

if TYPE_CHECKING:
    from bot.client import Interaction

OPTION_LABEL_LIMIT = 100  # a select option's label (Component Reference, Select Option Structure)


async def papers_in_message(interaction: Interaction, message: discord.Message) -> list[str]:
    """The paper links in ``message``, or the error saying why there are none."""
    if interaction.client.user is not None and message.author.id == interaction.client.user.id:
        raise NotAllowed(
            "That is one of my own messages; use `/suggest paper` or `/organize reading add` with the paper."
        )
    seen = interaction.permissions
    if not (seen.view_channel and seen.read_message_history):
        raise NotAllowed("You cannot read the messages in that channel, so I cannot use that one.")
    links = find_paper_links(message.content or "")
    if not links:
        raise BadInput(
            "There is no paper link in that message (an arXiv, DOI, OpenReview or other web link)."
        )
    try:
        await discord.PartialMessage(channel=message.channel, id=message.id).fetch()
    except discord.NotFound:
        raise NotFound("That message was deleted, so I cannot use it.") from None
    except discord.Forbidden:
        pass  # the bot cannot read that channel: the message as the member saw it will do
    return links


def link_options(links: list[str]) -> list[discord.SelectOption]:
    """One select option per link (the value is its place in ``links``); the first chosen by default."""
    return [
        discord.SelectOption(label=cut(link, OPTION_LABEL_LIMIT), value=str(i), default=i == 0)
        for i, link in enumerate(links)
    ]


def chosen_link(links: list[str], values: list[str]) -> str:
    """The link picked in a :func:`link_options` select; BadInput for a value that was never offered."""
    if not values:
        return links[0]
    (value,) = values[:1]
    if not value.isdigit() or int(value) >= len(links):
        raise BadInput("That is not one of the links in the message; open the command again.")
    return links[int(value)]
