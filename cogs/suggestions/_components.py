"""The suggestion post's buttons (Upvote, I'd present this, Create session: restart-proof) and the forms."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, cast

import discord

from bot import timeutil, when
from bot.client import Interaction
from bot.errors import NotAllowed
from bot.layouts import link_button
from bot.message_papers import chosen_link, link_options
from bot.papers import MAX_TITLE_LENGTH, MAX_URL_LENGTH
from bot.replies import BUTTON_LABEL_LIMIT, cut
from bot.services.sessions.rules import MAX_TITLE as MAX_SESSION_TITLE
from bot.services.suggestions.actions import MAX_REASON_LENGTH, Typed
from bot.services.suggestions.queries import Place, SuggestionCard
from bot.views import PaperclubModal, PaperclubView, PersistentButton, field
from cogs.suggestions._render import post_card


class Presses(Protocol):
    """What the suggestions cog does with the buttons' presses and the forms."""

    async def press_vote(self, interaction: Interaction, suggestion_id: int) -> None:
        """Upvote."""

    async def press_present(self, interaction: Interaction, suggestion_id: int) -> None:
        """I'd present this."""

    async def open_session_form(self, interaction: Interaction, suggestion_id: int) -> None:
        """Create a session from it."""

    async def suggest_paper(self, interaction: Interaction, typed: Typed) -> None:
        """The suggestion form, sent."""

    async def create_session_from(
        self, interaction: Interaction, suggestion_id: int, title: str, when: str, timezone: str | None
    ) -> None:
        """The session form, sent."""


def handlers(interaction: Interaction) -> Presses:
    """The suggestions cog, which handles the presses and forms."""
    cog = interaction.client.get_cog("SuggestionsCog")
    if cog is None:
        raise NotAllowed("Suggestions are switched off on this bot right now.")
    return cast(Presses, cog)


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


def card_layout(card: SuggestionCard, now: datetime) -> discord.ui.LayoutView:
    """The post: the card with Upvote, I'd present this (disabled once closed) and the paper's link."""
    buttons: list[discord.ui.Item[Any]] = [
        VoteButton(card.id, card.votes, disabled=not card.is_active),
        PresentButton(card.id, len(card.volunteer_ids), disabled=not card.is_active),
    ]
    if (paper_link := link_button(card.paper.url)) is not None:
        buttons.append(paper_link)
    return post_card(card, now).row(buttons).view()


def session_offer_view(suggestion_id: int) -> PaperclubView:
    return PaperclubView(timeout=None).add_item(CreateSessionButton(suggestion_id))


def _optional(value: str) -> str | None:
    return value if value.strip() else None


class SuggestModal(PaperclubModal, title="Suggest a paper"):
    """/suggest without a paper, and "Suggest this paper": the paper, title, why, topic and a checkbox."""

    def __init__(
        self,
        topics: tuple[str, ...],
        *,
        topic: str | None = None,
        paper: str | None = None,
        title: str | None = None,
        why: str | None = None,
        source: Place | None = None,
        links: tuple[str, ...] = (),
    ) -> None:
        super().__init__(custom_id="sugg:modal:suggest")
        self.source = source
        self.links = list(links)
        self.paper: discord.ui.TextInput[SuggestModal] = discord.ui.TextInput(
            custom_id="paper",
            placeholder="2401.12345, https://arxiv.org/abs/2401.12345, a DOI or the title",
            default=paper[:MAX_URL_LENGTH] if paper else None,
            max_length=MAX_URL_LENGTH,
        )
        self.paper_choice: discord.ui.Select[SuggestModal] = discord.ui.Select(
            custom_id="paper", options=link_options(self.links[:25]) if len(self.links) > 1 else []
        )
        self.paper_title: discord.ui.TextInput[SuggestModal] = discord.ui.TextInput(
            custom_id="title", required=False, default=title, max_length=MAX_TITLE_LENGTH
        )
        self.why: discord.ui.TextInput[SuggestModal] = discord.ui.TextInput(
            custom_id="why",
            style=discord.TextStyle.paragraph,
            required=False,
            default=why,
            max_length=MAX_REASON_LENGTH,
        )
        if len(self.links) > 1:
            chosen: discord.ui.Item[SuggestModal] = self.paper_choice
            hint = "The message links to several papers: pick the one to suggest"
        else:
            chosen, hint = self.paper, "An arXiv id or link, a DOI, an OpenReview or other link, or the title"
        self.add_item(discord.ui.Label(text="Paper", description=hint, component=chosen))
        self.add_item(
            discord.ui.Label(
                text="Title (optional)",
                description="Found by itself for arXiv papers; give it for other links",
                component=self.paper_title,
            )
        )
        self.add_item(discord.ui.Label(text="Why should the club read it? (optional)", component=self.why))
        self.topic: discord.ui.Select[SuggestModal] | None = None
        if topics:
            self.topic = discord.ui.Select(
                custom_id="topic",
                required=False,
                min_values=0,
                placeholder="Pick the closest topic (optional)",
                options=[discord.SelectOption(label=t, value=t, default=t == topic) for t in topics[:25]],
            )
            self.add_item(discord.ui.Label(text="Topic", component=self.topic))
        self.volunteer: discord.ui.Checkbox[SuggestModal] = discord.ui.Checkbox(custom_id="volunteer")
        self.add_item(
            discord.ui.Label(
                text="I'd present this",
                description="Offer to present it if the club picks it (you can take it back on the post)",
                component=self.volunteer,
            )
        )

    async def submitted(self, interaction: Interaction) -> None:
        picked = self.topic.values if self.topic is not None else []
        topic = picked[0] if picked else None
        paper = chosen_link(self.links, self.paper_choice.values) if len(self.links) > 1 else self.paper.value
        typed = Typed(
            paper,
            _optional(self.paper_title.value),
            _optional(self.why.value),
            topic,
            volunteer=self.volunteer.value,
            source=self.source,
        )
        await handlers(interaction).suggest_paper(interaction, typed)


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
