"""The *Add to reading list* form: the message's paper, a list (picked or new) and a note."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import discord

from bot.client import Interaction
from bot.errors import BadInput
from bot.message_papers import chosen_link, link_options
from bot.papers import MAX_URL_LENGTH
from bot.services.reading import lists as svc
from bot.text import cut
from bot.views import PaperclubModal

AddPaper = Callable[[Interaction, str, svc.PaperInput, str | None], Awaitable[None]]


class AddFromMessageModal(PaperclubModal, title="Add to a reading list"):
    """The paper, the list (picked or a new one's name: exactly one) and a note; ``add`` puts it there."""

    def __init__(self, links: list[str], lists: list[str], add: AddPaper) -> None:
        super().__init__(custom_id="reading:modal:add")
        self.links = links
        self.lists = lists[:25]  # a select's options
        self.add_to_list = add
        self.paper = discord.ui.TextInput[AddFromMessageModal](
            custom_id="paper", default=links[0][:MAX_URL_LENGTH], max_length=MAX_URL_LENGTH
        )
        self.paper_choice = discord.ui.Select[AddFromMessageModal](
            custom_id="paper", options=link_options(links[:25]) if len(links) > 1 else []
        )
        if len(links) > 1:
            paper_field: discord.ui.Item[AddFromMessageModal] = self.paper_choice
            hint = "The message links to several papers: pick one"
        else:
            paper_field, hint = self.paper, "The link from the message; change it if you need"
        self.add_item(discord.ui.Label(text="Paper", description=hint, component=paper_field))
        self.list_choice = discord.ui.Select[AddFromMessageModal](
            custom_id="list",
            required=False,
            min_values=0,
            placeholder="Pick a list, or name a new one below",
            options=[
                discord.SelectOption(label=cut(name, 100), value=str(i)) for i, name in enumerate(self.lists)
            ],
        )
        if self.lists:
            self.add_item(discord.ui.Label(text="Reading list", component=self.list_choice))
        self.new_list = discord.ui.TextInput[AddFromMessageModal](
            custom_id="new_list", required=not self.lists, max_length=svc.MAX_LIST_NAME
        )
        self.add_item(
            discord.ui.Label(
                text="New list" if self.lists else "Reading list",
                description="A new list's name (it is started for you)",
                component=self.new_list,
            )
        )
        self.note = discord.ui.TextInput[AddFromMessageModal](
            custom_id="note", required=False, style=discord.TextStyle.paragraph, max_length=svc.MAX_NOTE
        )
        self.add_item(
            discord.ui.Label(text="Note (optional)", description="Why it is on the list", component=self.note)
        )

    def chosen_list(self) -> str:
        """The list picked or named: exactly one of the two; BadInput otherwise."""
        picked = self.list_choice.values if self.lists else []
        named = self.new_list.value.strip()
        if picked and named:
            raise BadInput("Pick a list or name a new one, not both.")
        if named:
            return named
        if not picked:
            raise BadInput("Pick a reading list or name a new one.")
        value = picked[0]
        if not value.isdigit() or int(value) >= len(self.lists):
            raise BadInput("That is not one of this server's reading lists; open the command again.")
        return self.lists[int(value)]

    async def submitted(self, interaction: Interaction) -> None:
        """Read the form, then add the paper."""
        link = chosen_link(self.links, self.paper_choice.values) if len(self.links) > 1 else self.paper.value
        paper = svc.read_paper_input(link)
        note = self.note.value if self.note.value.strip() else None
        await self.add_to_list(interaction, self.chosen_list(), paper, note)
