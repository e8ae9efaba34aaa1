"""The UI base classes (bot/views.py) end to end: a PersistentButton press and a PaperclubModal submission
each give one log line, and what ``pressed``/``submitted`` raise reaches the one error handler."""

from __future__ import annotations

import logging
from typing import Any

import discord
import pytest

from tests.sessions.helpers import add_session


def outcomes(caplog: pytest.LogCaptureFixture, command: str) -> list[str]:
    return [
        r.getMessage().rsplit("outcome=", 1)[1]
        for r in caplog.records
        if r.name == "paperclub.interactions" and f"command={command} " in r.getMessage()
    ]


async def post_old_buttons(env: Any, *custom_ids: str) -> Any:
    """A message with these buttons, as an earlier process of the bot would have posted it."""
    view = discord.ui.View()
    for custom_id in custom_ids:
        view.add_item(discord.ui.Button(label=custom_id, custom_id=custom_id))
    sent = await env.bot.get_channel(env.general.id).send(content="Earlier", view=view)
    await env.restart_bot()  # only the dynamic items answer now
    return env.standin.message(sent.id)


async def test_a_press_is_logged_once_and_a_refusal_reaches_the_handler(discord_env, caplog) -> None:
    env = discord_env
    session_id = await add_session(env, "Logged", "2026-12-10 09:30")
    message = await post_old_buttons(env, f"session:remind:{session_id}", "session:ics:999999")
    with caplog.at_level(logging.INFO, logger="paperclub.interactions"):
        pressed = await (await env.click(message, f"session:remind:{session_id}", member=env.member)).final()
        assert pressed.content.startswith("I'll remind you by DM an hour before **Logged**")
        refused = await (await env.click(message, "session:ics:999999", member=env.member)).final()
    assert outcomes(caplog, f"session:remind:{session_id}") == ["ok"]
    assert refused.flags & 64  # ephemeral: the domain error's message, to the presser only
    assert "999999" in refused.content
    assert outcomes(caplog, "session:ics:999999") == ["refused:NotFound"]


async def test_a_form_submission_is_logged_once(discord_env, caplog) -> None:
    env = discord_env
    session_id = await add_session(env, "Form", "2026-12-10 09:30")
    opened = await env.invoke("organize session edit", {"session": session_id}, member=env.organizer)
    modal = (await opened.response()).modal
    assert modal is not None
    with caplog.at_level(logging.INFO, logger="paperclub.interactions"):
        submitted = await env.submit_modal(
            opened, {"session_edit:title": "Form, renamed"}, member=env.organizer
        )
        reply = await submitted.final()
    assert "changed title" in reply.text
    assert outcomes(caplog, modal["custom_id"]) == ["ok"]
