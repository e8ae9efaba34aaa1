"""UI base classes: a view, a modal, a restart-proof :class:`PersistentButton`; one error handler."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Self, TypeVar, overload

import discord

from bot.tree import log_outcome, report_error

T = TypeVar("T")

# https://discord.com/developers/docs/components/reference#anatomy-of-a-component-custom-id
CUSTOM_ID_LIMIT = 100


class PaperclubView(discord.ui.View):
    """A view whose errors become ephemeral replies (domain errors) or a logged apology."""

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Note when the interaction arrived; let every press through."""
        interaction.extras.setdefault("paperclub_t0", time.perf_counter())
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        """Answer a component's error for the member."""
        await report_error(interaction, error)


class PaperclubLayoutView(discord.ui.LayoutView):
    """A Components V2 layout with in-memory items, its errors answered as :class:`PaperclubView`'s are."""

    interaction_check = PaperclubView.interaction_check
    on_error = PaperclubView.on_error


class PaperclubModal(discord.ui.Modal):
    """A modal whose subclasses implement ``submitted``; errors go to the one handler, submissions are logged."""

    async def on_submit(self, interaction: discord.Interaction[Any], /) -> None:
        """Handle the submitted modal, then log the outcome."""
        await self.submitted(interaction)
        log_component(interaction)

    async def submitted(self, interaction: discord.Interaction[Any]) -> None:
        """Handle the submitted form (``interaction.client`` is the PaperclubBot)."""
        raise NotImplementedError

    async def on_error(  # type: ignore[override]  # discord.py's stub differs from its runtime call
        self, interaction: discord.Interaction[Any], error: Exception, /
    ) -> None:
        """Answer a modal's error for the member."""
        await report_error(interaction, error)


class Field:
    """One value a PersistentButton keeps in its custom_id (declare it with :func:`field`)."""

    def __init__(self, pattern: str, parse: Callable[[str], Any]) -> None:
        self.pattern = pattern
        self.parse = parse
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name


@overload
def field(pattern: str) -> str: ...
@overload
def field(pattern: str, parse: Callable[[str], T]) -> T: ...
def field(pattern: str, parse: Callable[[str], Any] = str) -> Any:
    """A PersistentButton's custom_id field: its regex (no ``:``) and the parser back to its value."""
    return Field(pattern, parse)


class PersistentButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A button whose state is its custom_id (``<prefix>:<field>…``), rebuilt on a press after a restart."""

    label: ClassVar[str] = ""
    emoji: ClassVar[str | None] = None
    style: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary
    _prefix: ClassVar[str]
    _fields: ClassVar[tuple[Field, ...]]

    def __init_subclass__(cls, *, prefix: str, legacy: str | None = None) -> None:
        fields = tuple(
            value
            for klass in reversed(cls.__mro__)
            for value in vars(klass).values()
            if isinstance(value, Field)
        )
        for spec in fields:
            if hasattr(PersistentButton, spec.name):  # e.g. `id`, `row`, `label`: discord.py's or the look
                raise TypeError(f"{cls.__name__}.{spec.name} would shadow PersistentButton.{spec.name}")
        template = re.escape(prefix) + "".join(f":(?P<{spec.name}>{spec.pattern})" for spec in fields)
        if legacy is not None:
            template = f"{template}|{legacy}"
        super().__init_subclass__(template=template)
        cls._prefix, cls._fields = prefix, fields

    def __init__(self, *values: Any, label: str | None = None, disabled: bool = False) -> None:
        if len(values) != len(self._fields):
            names = ", ".join(spec.name for spec in self._fields)
            raise TypeError(f"{type(self).__name__} takes its custom_id fields ({names}), got {values!r}")
        for spec, value in zip(self._fields, values, strict=True):
            setattr(self, spec.name, value)
        custom_id = ":".join([self._prefix, *(str(value) for value in values)])
        if len(custom_id) > CUSTOM_ID_LIMIT:
            raise ValueError(f"custom_id {custom_id[:40]!r}… is over Discord's {CUSTOM_ID_LIMIT} characters")
        if not self.template.fullmatch(custom_id):  # discord.py checks only a prefix
            raise ValueError(f"custom_id {custom_id!r} does not match {type(self).__name__}'s fields")
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=self.label if label is None else label,
            emoji=self.emoji,
            style=self.style,
            custom_id=custom_id,
            disabled=disabled,
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        """The button from its custom id's match."""
        return cls.from_match(match)

    @classmethod
    def from_match(cls, match: re.Match[str]) -> Self:
        """The pressed button, rebuilt from its custom_id's fields."""
        return cls(*(spec.parse(match[spec.name]) for spec in cls._fields))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Handle a press, answering errors for the member."""
        await guarded(interaction, lambda: self.pressed(interaction))

    async def pressed(self, interaction: discord.Interaction[Any]) -> None:
        """Handle a press (``interaction.client`` is the PaperclubBot); raise a domain error to refuse."""
        raise NotImplementedError


async def guarded(interaction: discord.Interaction[Any], handler: Callable[[], Awaitable[None]]) -> None:
    """Run a restart-proof button's handler with the one error handler (discord.py would only log errors)."""
    interaction.extras.setdefault("paperclub_t0", time.perf_counter())
    try:
        await handler()
    except Exception as error:  # noqa: BLE001  the one handler: domain errors to the member, others logged
        await report_error(interaction, error)
    else:
        log_component(interaction)


def log_component(interaction: discord.Interaction[Any], outcome: str = "ok") -> None:
    """Log a component or modal interaction's outcome."""
    log_outcome(interaction, outcome)
