"""Buttons and modals. The post's Upvote and I'd present this buttons, and the organizer's
Create session button, are PersistentButtons with the suggestion id in their custom_id, so they keep
working after a restart; each hands the press to the cog's SuggestionActions."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

from bot import timeutil, when
from bot.client import Interaction
from bot.errors import NotAllowed
from bot.papers import MAX_TITLE_LENGTH, MAX_URL_LENGTH
from bot.replies import BUTTON_LABEL_LIMIT, cut
from bot.services.sessions.rules import MAX_TITLE as MAX_SESSION_TITLE
from bot.services.suggestions.actions import MAX_REASON_LENGTH
from bot.services.suggestions.queries import SuggestionCard
from bot.views import PaperclubModal, PaperclubView, PersistentButton, field

if TYPE_CHECKING:
    from cogs.suggestions._actions import SuggestionActions
    from cogs.suggestions._cog import SuggestionsCog


def handlers(interaction: Interaction) -> SuggestionActions:
    """The suggestions cog's SuggestionActions, which handle the presses and forms."""
    cog = cast("SuggestionsCog | None", interaction.client.get_cog("SuggestionsCog"))
    if cog is None:
        raise NotAllowed("Suggestions are switched off on this bot right now.")
    return cog.actions


class VoteButton(PersistentButton, prefix="sugg:vote"):
    suggestion_id: int = field(r"\d{1,10}", int)
    emoji = "👍"
    style = discord.ButtonStyle.primary

    def __init__(self, suggestion_id: int, votes: int = 0, *, disabled: bool = False) -> None:
        super().__init__(suggestion_id, label=f"Upvote · {votes}", disabled=disabled)

    async def pressed(self, interaction: Interaction) -> None:
        await handlers(interaction).press_vote(interaction, self.suggestion_id)


class PresentButton(PersistentButton, prefix="sugg:present"):
    suggestion_id: int = field(r"\d{1,10}", int)
    emoji = "🎤"

    def __init__(self, suggestion_id: int, volunteers: int = 0, *, disabled: bool = False) -> None:
        label = "I'd present this" + (f" · {volunteers}" if volunteers else "")
        super().__init__(suggestion_id, label=cut(label, BUTTON_LABEL_LIMIT), disabled=disabled)

    async def pressed(self, interaction: Interaction) -> None:
        await handlers(interaction).press_present(interaction, self.suggestion_id)


class CreateSessionButton(PersistentButton, prefix="sugg:session"):
    """Offered to the organizer who accepted a suggestion: opens the prefilled session form."""

    suggestion_id: int = field(r"\d{1,10}", int)
    label = "Create a session from it"
    emoji = "📅"
    style = discord.ButtonStyle.success

    async def pressed(self, interaction: Interaction) -> None:
        await handlers(interaction).open_session_form(interaction, self.suggestion_id)


DYNAMIC_ITEMS = (VoteButton, PresentButton, CreateSessionButton)


def card_view(card: SuggestionCard) -> PaperclubView:
    """The post's buttons; closed (declined, withdrawn) suggestions show them disabled."""
    view = PaperclubView(timeout=None)
    view.add_item(VoteButton(card.id, card.votes, disabled=not card.accepts_votes))
    view.add_item(PresentButton(card.id, len(card.volunteer_ids), disabled=not card.is_active))
    return view


def session_offer_view(suggestion_id: int) -> PaperclubView:
    view = PaperclubView(timeout=None)
    view.add_item(CreateSessionButton(suggestion_id))
    return view


def _optional(value: str) -> str | None:
    return value if value.strip() else None


class SuggestModal(PaperclubModal, title="Suggest a paper"):
    """/suggest without a paper: the paper, an optional title and why (the topic comes from the command)."""

    paper: discord.ui.TextInput[SuggestModal] = discord.ui.TextInput(
        label="Paper (arXiv id or link, DOI, link or title)",
        custom_id="paper",
        placeholder="2401.12345 or https://arxiv.org/abs/2401.12345",
        max_length=MAX_URL_LENGTH,
    )
    paper_title: discord.ui.TextInput[SuggestModal] = discord.ui.TextInput(
        label="Title (optional; found for arXiv papers)",
        custom_id="title",
        required=False,
        max_length=MAX_TITLE_LENGTH,
    )
    why: discord.ui.TextInput[SuggestModal] = discord.ui.TextInput(
        label="Why should the club read it? (optional)",
        custom_id="why",
        style=discord.TextStyle.paragraph,
        required=False,
        max_length=MAX_REASON_LENGTH,
    )

    def __init__(self, topic: str | None) -> None:
        super().__init__(custom_id="sugg:modal:suggest")
        self.topic = topic

    async def submitted(self, interaction: Interaction) -> None:
        await handlers(interaction).suggest_paper(
            interaction,
            self.paper.value,
            _optional(self.paper_title.value),
            _optional(self.why.value),
            self.topic,
        )


class SessionFromSuggestionModal(PaperclubModal, title="New session from a suggestion"):
    """Prefilled with the suggestion's title; the organizer gives the time (and zone)."""

    session_title: discord.ui.TextInput[SessionFromSuggestionModal] = discord.ui.TextInput(
        label="Title", custom_id="title", max_length=MAX_SESSION_TITLE
    )
    when: discord.ui.TextInput[SessionFromSuggestionModal] = discord.ui.TextInput(
        label="When",
        custom_id="when",
        placeholder="Thursday 9:30am, or 2026-12-10 09:30",
        max_length=when.MAX_TEXT,
    )
    zone: discord.ui.TextInput[SessionFromSuggestionModal] = discord.ui.TextInput(
        label="Time zone (optional; the club's by default)",
        custom_id="timezone",
        required=False,
        max_length=timeutil.MAX_ZONE_TEXT,
    )

    def __init__(self, suggestion_id: int, title: str, timezone: str) -> None:
        super().__init__(custom_id=f"sugg:modal:session:{suggestion_id}")
        self.suggestion_id = suggestion_id
        self.session_title.default = title[:MAX_SESSION_TITLE]
        self.zone.placeholder = timezone

    async def submitted(self, interaction: Interaction) -> None:
        await handlers(interaction).create_session_from(
            interaction,
            self.suggestion_id,
            self.session_title.value,
            self.when.value,
            _optional(self.zone.value),
        )
