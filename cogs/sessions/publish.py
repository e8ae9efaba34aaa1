"""Creating or changing a session and publishing it: the one flow every feature uses (``/session add``,
``/session edit``, a session made from an accepted suggestion).

The store part is :func:`bot.services.sessions.store.save_new_session`; this module adds the Discord part:
dispatch ``session_saved`` (reminders and others listen) and create or move the scheduled event, best effort
once the session is saved (trouble becomes a warning, never a lost session). It does not announce
(``/session announce``: cogs/sessions/_announcements.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import discord
from discord.utils import escape_markdown

from bot.client import PaperclubBot
from bot.papers import parse_paper_ref
from bot.replies import one_line
from bot.services.sessions import store as svc
from bot.services.sessions.draft import SessionChanges, SessionDraft
from bot.services.sessions.info import Overlap, SessionInfo
from bot.services.sessions.rules import PaperReading
from bot.timeutil import DisplayZone, discord_timestamp
from cogs.sessions import _announcements as announcements
from cogs.sessions._events import sync_event

SHOWN_OVERLAPS = 3
SHOWN_TITLE = 80


@dataclass(frozen=True)
class Published:
    """What the caller needs to reply: the session as saved (with arXiv's titles; the Discord event's
    id is recorded in the store, not here), ``notes`` (how the input was read) and ``warnings`` (other
    sessions at that time, Discord trouble), each a line for the reply. For an edit, ``changed``
    names the fields that changed (empty: nothing did, nothing was published)."""

    info: SessionInfo
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    changed: frozenset[str] = field(default_factory=frozenset)


def _quoted(text: str) -> str:
    return f"“{escape_markdown(one_line(text, SHOWN_TITLE))}”"


def reading_note(reading: PaperReading | None) -> str | None:
    """How a typed `papers` text was split, when a comma made it unclear (else None)."""
    if reading is None or not reading.worth_telling:
        return None
    count = len(reading.items)
    read_as = f"read as {count} paper{'s' if count != 1 else ''}"
    shown = " · ".join(_quoted(item) for item in reading.items)
    if reading.against:
        keys = [parse_paper_ref(item).key for item in reading.items]  # each item read before: it parses
        main = [
            _quoted(item) for item, key in zip(reading.items, keys, strict=True) if key not in reading.against
        ]
        rest = [
            _quoted(item) for item, key in zip(reading.items, keys, strict=True) if key in reading.against
        ]
        shown = f"{' · '.join(main)}, read against {' · '.join(rest)}"
    if reading.by_commas:
        return (
            f"Papers: {read_as}, split at the commas: {shown}. If that is one title, give it in quotes; "
            "one paper per line or `;` between papers always separates them."
        )
    return f"Papers: {read_as}: {shown}. To give several, put one per line or separate them with `;`."


def input_notes(start_note: str | None, reading: PaperReading | None) -> tuple[str, ...]:
    """The notes the reply to an added or edited session shows: about its start, and how its papers were read."""
    notes = [f"Note: {start_note}." if start_note else None, reading_note(reading)]
    return tuple(note for note in notes if note)


def overlap_warning(overlaps: Sequence[Overlap]) -> str | None:
    """A heads-up (not a refusal) when the guild has other sessions at the same time."""
    if not overlaps:
        return None
    shown = [
        f"#{o.id} {_quoted(o.title)} ({discord_timestamp(o.starts_at, 'f')})"
        for o in overlaps[:SHOWN_OVERLAPS]
    ]
    if len(overlaps) > SHOWN_OVERLAPS:
        shown.append(f"{len(overlaps) - SHOWN_OVERLAPS} more")
    plural = "s" if len(overlaps) > 1 else ""
    return (
        f"Heads up: this overlaps session{plural} {', '.join(shown)}. Both are kept; "
        "move one with `/session edit` if that was not meant."
    )


async def _publish(bot: PaperclubBot, info: SessionInfo, zones: Sequence[DisplayZone]) -> str | None:
    """Tell the other features, and keep the Discord event in step. A warning, or None."""
    bot.dispatch("session_saved", info.guild_id, info.id)
    guild = bot.get_guild(info.guild_id)
    if guild is None:
        return None
    return await sync_event(bot, guild, info, zones)


async def create_and_publish(
    bot: PaperclubBot,
    guild_id: int,
    draft: SessionDraft,
    *,
    created_by: int | None,
    zones: Sequence[DisplayZone],
    then: svc.Then | None = None,
) -> Published:
    """Save a checked draft as a new session (``then`` runs in the same transaction: raising rolls the
    session back), fill in arXiv's titles, tell the other features, create its Discord event."""
    created = await svc.save_new_session(
        bot.session_factory,
        bot.arxiv,
        guild_id,
        draft,
        created_by=created_by,
        now=bot.clock.now(),
        then=then,
    )
    warnings = [overlap_warning(created.overlaps), await _publish(bot, created.info, zones)]
    return Published(
        info=created.info,
        notes=input_notes(draft.start_note, draft.reading),
        warnings=tuple(w for w in warnings if w),
    )


async def change_and_publish(
    bot: PaperclubBot,
    guild_id: int,
    session_id: int,
    changes: SessionChanges | Callable[[str], SessionChanges],
    *,
    zones: Sequence[DisplayZone],
) -> Published:
    """Apply a checked edit (or one built from the session's stored zone, see
    :func:`bot.services.sessions.store.save_changes`), fill in arXiv's titles and, when anything
    changed, tell the other features and move the Discord event."""
    edit, applied = await svc.save_changes(
        bot.session_factory, bot.arxiv, guild_id, session_id, changes, now=bot.clock.now()
    )
    warnings = [overlap_warning(edit.overlaps)]
    if edit.changed:
        warnings.append(await _publish(bot, edit.info, zones))
    return Published(
        info=edit.info,
        notes=input_notes(applied.start_note, applied.reading),
        warnings=tuple(w for w in warnings if w),
        changed=edit.changed,
    )


async def publish_saved(bot: PaperclubBot, info: SessionInfo, zones: Sequence[DisplayZone]) -> list[str]:
    """A session another feature changed in the store (a week of a series): tell the other features, keep
    its Discord event and its posted announcement in step. The warnings, if any."""
    warnings = [await _publish(bot, info, zones), await announcements.refresh_announcement(bot, info, zones)]
    return [w for w in warnings if w]


async def publish_cancelled(
    bot: PaperclubBot, guild: discord.Guild | None, info: SessionInfo, zones: Sequence[DisplayZone]
) -> list[str]:
    """A session just cancelled in the store: tell the other features, cancel its Discord event, mark
    its announcement and post the notice under it. The warnings, if any."""
    bot.dispatch("session_cancelled", info.guild_id, info.id)
    warnings = [
        await sync_event(bot, guild, info, zones) if guild is not None else None,
        await announcements.refresh_announcement(bot, info, zones),
        await announcements.post_cancellation(bot, info, zones),
    ]
    return [w for w in warnings if w]
