"""Building and editing stored messages from request bodies (shared by channel and webhook routes)."""

from __future__ import annotations

import copy
import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from standin.components import assign_ids, edited_flags, mention_text
from standin.state import (
    EPHEMERAL,
    LOADING,
    MENTION_EVERYONE,
    Channel,
    Json,
    Message,
    State,
    User,
    iso,
    member_permissions,
)

USER_MENTION = re.compile(r"<@!?(\d+)>")
ROLE_MENTION = re.compile(r"<@&(\d+)>")
KEPT_FLAGS = EPHEMERAL | (1 << 2) | (1 << 12) | (1 << 15)  # ephemeral, suppress embeds/notifications, v2


@dataclass
class Upload:
    """A file part of a multipart request (``files[n]``)."""

    index: int
    filename: str
    content_type: str
    data: bytes


def _attachment(state: State, channel_id: int, base_url: str, meta: Json, upload: Upload | None) -> Json:
    attachment_id = state.ids.next()
    filename = str(meta.get("filename") or (upload.filename if upload else "file"))
    size = len(upload.data) if upload else 0
    url = f"{base_url}/attachments/{channel_id}/{attachment_id}/{filename}"
    data: Json = {
        "id": str(attachment_id),
        "filename": filename,
        "size": size,
        "url": url,
        "proxy_url": url,
        "content_type": upload.content_type if upload else "application/octet-stream",
    }
    if meta.get("description"):
        data["description"] = meta["description"]
    return data


def resolve_attachments(
    state: State,
    message: Message | None,
    channel_id: int,
    base_url: str,
    metas: list[Json] | None,
    uploads: list[Upload],
) -> tuple[list[Json], dict[int, bytes]]:
    """Turn ``attachments`` + uploaded files into attachment objects; keeps existing ones referenced by id."""
    by_index = {u.index: u for u in uploads}
    existing = {a["id"]: a for a in (message.attachments if message else [])}
    out: list[Json] = []
    files: dict[int, bytes] = dict(message.files) if message else {}
    used: set[int] = set()

    def add(meta: Json, upload: Upload) -> None:
        used.add(upload.index)
        data = _attachment(state, channel_id, base_url, meta, upload)
        files[int(data["id"])] = upload.data
        out.append(data)

    for meta in metas if metas is not None else [{"id": u.index} for u in uploads]:
        key = str(meta.get("id"))
        if key in existing:
            out.append(existing[key])
        elif key.isdigit() and int(key) in by_index and int(key) not in used:
            add(meta, by_index[int(key)])
    for upload in uploads:  # files sent without an attachments entry
        if upload.index not in used:
            add({}, upload)
    kept = {int(a["id"]) for a in out}
    files = {k: v for k, v in files.items() if k in kept}
    return out, files


def poll_payload(poll: Json) -> Json:
    """A message's poll as Discord returns it, with answer ids and an expiry."""
    hours = int(poll.get("duration", 24))
    expiry = dt.datetime.now(dt.UTC) + dt.timedelta(hours=hours)
    return {
        "question": {"text": (poll.get("question") or {}).get("text")},
        "answers": [
            {"answer_id": i + 1, "poll_media": a.get("poll_media") or {}}
            for i, a in enumerate(poll.get("answers") or [])
        ],
        "expiry": iso(expiry),
        "allow_multiselect": bool(poll.get("allow_multiselect")),
        "layout_type": int(poll.get("layout_type") or 1),
        "results": {"is_finalized": False, "answer_counts": []},
    }


def _mentions(state: State, channel: Channel, content: str, allowed: Json | None, author: User) -> Json:
    guild = state.guild_of(channel)
    parse = set(allowed.get("parse") or []) if allowed is not None else {"users", "roles", "everyone"}
    allowed_users = {int(u) for u in (allowed or {}).get("users") or []}
    allowed_roles = {int(r) for r in (allowed or {}).get("roles") or []}
    users: list[Json] = []
    for raw in dict.fromkeys(USER_MENTION.findall(content)):
        user = state.users.get(int(raw))
        if user is not None and ("users" in parse or int(raw) in allowed_users):
            users.append(user.payload())
    roles: list[str] = []
    everyone = False
    if guild is not None:
        member = guild.members.get(author.id)
        can_all = member is not None and bool(member_permissions(guild, member, channel) & MENTION_EVERYONE)
        for raw in dict.fromkeys(ROLE_MENTION.findall(content)):
            role = guild.roles.get(int(raw))
            if role is None or not ("roles" in parse or role.id in allowed_roles):
                continue
            if role.mentionable or can_all:
                roles.append(str(role.id))
        everyone = "everyone" in parse and can_all and ("@everyone" in content or "@here" in content)
    return {"mentions": users, "mention_roles": roles, "mention_everyone": everyone}


def build_message(
    state: State,
    channel: Channel,
    body: Json,
    uploads: list[Upload],
    *,
    base_url: str,
    author: User | None = None,
    interaction: Json | None = None,
    loading: bool = False,
) -> Message:
    """Build a message from a create-message body and its uploads."""
    author = author or state.bot
    flags = int(body.get("flags") or 0) & KEPT_FLAGS
    if loading:
        flags |= LOADING
    message_id = state.ids.next()
    attachments, files = resolve_attachments(
        state, None, channel.id, base_url, body.get("attachments"), uploads
    )
    payload: Json = {
        "id": str(message_id),
        "channel_id": str(channel.id),
        "author": author.payload(),
        "content": str(body.get("content") or ""),
        "timestamp": iso(),
        "edited_timestamp": None,
        "tts": False,
        "attachments": attachments,
        "embeds": [{"type": "rich", **e} for e in body.get("embeds") or []],
        "components": assign_ids(copy.deepcopy(list(body.get("components") or []))),
        "reactions": [],
        "pinned": False,
        "type": 0,
        "flags": flags,
        "mention_channels": [],
    }
    payload.update(_mentions(state, channel, mention_text(payload), body.get("allowed_mentions"), author))
    guild = state.guild_of(channel)
    if guild is not None:
        payload["guild_id"] = str(guild.id)
        member = guild.members.get(author.id)
        if member is not None:
            payload["member"] = member.payload(with_user=False)
    if body.get("nonce") is not None:
        payload["nonce"] = body["nonce"]
    if body.get("poll"):
        payload["poll"] = poll_payload(body["poll"])
    if body.get("message_reference"):
        ref = dict(body["message_reference"])
        ref.setdefault("channel_id", str(channel.id))
        payload["message_reference"] = ref
        payload["type"] = 19
    if interaction is not None:
        payload["webhook_id"] = str(state.application_id)
        payload["application_id"] = str(state.application_id)
        payload["interaction_metadata"] = interaction
        if interaction.get("type") == 2:
            payload["type"] = 20
        target = state.messages.get(int(interaction.get("target_message_id") or 0))
        if target is not None:
            # Message Interaction Metadata, target_message_id: "The original response message will also have
            # message_reference and referenced_message pointing to this message."
            payload["message_reference"] = {
                "type": 0,
                "message_id": str(target.id),
                "channel_id": str(channel.id),
            }
            payload["referenced_message"] = None if target.deleted else copy.deepcopy(target.payload)
    return Message(payload=payload, ephemeral=bool(flags & EPHEMERAL), files=files)


def edit_message(state: State, message: Message, body: Json, uploads: list[Upload], *, base_url: str) -> None:
    """Apply an edit body checked by ``limits.check_edit``; a Components V2 message stays one."""
    payload = message.payload
    if "content" in body:
        payload["content"] = body["content"] if body["content"] is not None else ""
    if "components" in body:
        payload["components"] = assign_ids(copy.deepcopy(list(body["components"] or [])))
    if "embeds" in body:
        payload["embeds"] = [{"type": "rich", **e} for e in body["embeds"] or []]
    if "poll" in body and body["poll"] is None:
        payload.pop("poll", None)
    if "attachments" in body or uploads:
        payload["attachments"], message.files = resolve_attachments(
            state, message, message.channel_id, base_url, body.get("attachments"), uploads
        )
    payload["flags"] = edited_flags(int(payload.get("flags") or 0), body.get("flags")) & ~LOADING
    channel = state.channels.get(message.channel_id)
    if channel is not None and ("content" in body or "components" in body):
        author = state.users.get(message.author_id, state.bot)
        payload.update(_mentions(state, channel, mention_text(payload), body.get("allowed_mentions"), author))
    payload["edited_timestamp"] = iso()
    message.edits += 1


def parse_time(value: Any) -> dt.datetime | None:
    """Parse an ISO timestamp into an aware datetime (UTC when it has no zone)."""
    if not value:
        return None
    moment = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
