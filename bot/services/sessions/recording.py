"""*Add the recording and notes*: the form the presenter gets by DM after the session and organizers find on
a past session's card; submitting it is ``/organize session recap``."""

from __future__ import annotations

from datetime import datetime

from bot.errors import NotAllowed, NotFound
from bot.services.config.guild import get_config
from bot.services.sessions import publish
from bot.services.sessions.context import SessionsContext
from bot.services.sessions.info import SessionInfo, session_info
from bot.services.sessions.store import load_row
from db.models import ClubSession

NOT_YOURS = "Only the session's presenter or an organizer can add its recording and notes."


async def form_session(
    ctx: SessionsContext, session_id: int, user_id: int, *, guild_id: int | None, organizer: bool
) -> SessionInfo:
    """The session whose form ``user_id`` opens: from a server (``guild_id``) its presenter or an organizer
    there; from a DM (None) only its presenter. NotFound or NotAllowed otherwise."""
    async with ctx.store() as session:
        found = await session.get(ClubSession, session_id)
        if found is None or (guild_id is not None and found.guild_id != guild_id):
            raise NotFound(f"There is no session #{session_id} here.")
        if found.presenter_id != user_id and not (organizer and guild_id is not None):
            raise NotAllowed(NOT_YOURS)
        return session_info(await load_row(session, found.guild_id, session_id))


async def submit(
    ctx: SessionsContext,
    session_id: int,
    user_id: int,
    *,
    guild_id: int | None,
    organizer: bool,
    recording_url: str | None,
    notes_url: str | None,
    wiki_url: str | None,
    now: datetime,
) -> tuple[SessionInfo, tuple[str, ...]]:
    """The form submitted: checked as :func:`form_session` again (a submit can be forged), then the recap."""
    info = await form_session(ctx, session_id, user_id, guild_id=guild_id, organizer=organizer)
    async with ctx.store() as session:
        zones = (await get_config(session, info.guild_id)).display_zones
    return await publish.recap(
        ctx,
        info.guild_id,
        session_id,
        recording_url=recording_url,
        notes_url=notes_url,
        wiki_url=wiki_url,
        zones=zones,
        now=now,
    )
