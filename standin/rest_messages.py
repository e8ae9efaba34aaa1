"""Channel, message, thread, poll and DM routes."""

from __future__ import annotations

from aiohttp import web

from standin import limits
from standin.errors import ApiError, missing_access, missing_permissions, not_found
from standin.host import Host
from standin.messages import build_message, edit_message
from standin.rest import (
    API,
    Handler,
    body_of,
    bot_member,
    channel_from,
    no_content,
    ok,
    require,
    snowflake,
    standin_of,
    uploads_of,
)
from standin.state import (
    ATTACH_FILES,
    CREATE_PUBLIC_THREADS,
    DM,
    EMBED_LINKS,
    GUILD_FORUM,
    MANAGE_MESSAGES,
    MANAGE_THREADS,
    PIN_MESSAGES,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    SEND_POLLS,
    VIEW_CHANNEL,
    Channel,
    Json,
    Message,
    iso,
    member_permissions,
)


def message_from(request: web.Request, channel: Channel) -> Message:
    """The message named in the path in ``channel``, or Unknown Message."""
    message = standin_of(request).state.messages.get(snowflake(request, "message_id"))
    if message is None or message.channel_id != channel.id or message.deleted:
        raise not_found("Message", 10008)
    return message


def check_can_post(standin: Host, channel: Channel, body: Json, file_count: int) -> Json:
    """Channel permission checks for the bot posting a message (not for interaction responses); returns
    the message as Discord keeps it (see :func:`drop_unembeddable`)."""
    state = standin.state
    if channel.type == DM:
        recipient = channel.recipients[0]
        if recipient.dms_closed:
            raise ApiError(403, 50007, "Cannot send messages to this user")
        return body
    guild = state.guild_of(channel)
    if guild is None:
        return body
    if channel.type == GUILD_FORUM:
        raise ApiError(400, 50008, "Cannot send messages in a non-text channel")
    # Threads: "The SEND_MESSAGES permission is not inherited; users must have SEND_MESSAGES_IN_THREADS"
    # (Permissions, "Inherited Permissions (Threads)").
    send = SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES
    require(standin, guild, VIEW_CHANNEL | send, channel)
    if file_count:
        require(standin, guild, ATTACH_FILES, channel)
    if body.get("poll"):
        require(standin, guild, SEND_POLLS, channel)
    if is_reply(body):
        # Create Message, Limitations: "When creating a message as a reply to another message, the current
        # user must have the READ_MESSAGE_HISTORY permission."
        require(standin, guild, READ_MESSAGE_HISTORY, channel)
    kept = drop_unembeddable(standin, channel, body, file_count)
    if channel.is_thread and channel.locked:
        raise ApiError(400, 50083, "Thread is archived")
    return kept


def is_reply(body: Json) -> bool:
    """Whether a create-message body replies to another message (not a forward)."""
    reference = body.get("message_reference")
    return (
        isinstance(reference, dict) and int(reference.get("type") or 0) == 0
    )  # 0 DEFAULT (reply), 1 FORWARD


def drop_unembeddable(standin: Host, channel: Channel, body: Json, file_count: int) -> Json:
    """The message as Discord keeps it. Without EMBED_LINKS a bot's embeds are not shown: Discord drops them
    from a message that has other content, and refuses an embed-only message with Missing Permissions. The
    docs say only that EMBED_LINKS auto-embeds links; this is the behaviour reported in
    discord/discord-api-docs#2601 and #5648. (The request log keeps what the bot sent.)"""
    guild = standin.state.guild_of(channel)
    if guild is None or not body.get("embeds"):
        return body
    if member_permissions(guild, bot_member(standin, guild), channel) & EMBED_LINKS:
        return body
    rest = any(body.get(key) for key in ("content", "components", "sticker_ids", "poll"))
    if not rest and not file_count:
        raise missing_permissions()
    return {**body, "embeds": []}


async def post_message(request: web.Request) -> web.Response:
    """Post a message in a channel."""
    standin, channel, body, uploads = (
        standin_of(request),
        channel_from(request),
        body_of(request),
        uploads_of(request),
    )
    kept = check_can_post(standin, channel, body, len(uploads))
    limits.check_message(body, file_count=len(uploads))
    nonce = body.get("nonce")
    key = (channel.id, str(nonce))
    if nonce is not None and body.get("enforce_nonce"):
        seen = standin.state.nonces.get(key)
        if seen is not None and standin.clock() - seen[0] <= standin.nonce_window:
            earlier = standin.state.messages.get(seen[1])
            if earlier is not None and not earlier.deleted:
                return ok(earlier.payload)
    message = standin.state.add_message(
        build_message(standin.state, channel, kept, uploads, base_url=standin.base_url)
    )
    if nonce is not None:
        standin.state.nonces[key] = (standin.clock(), message.id)
    if channel.is_thread and channel.archived:
        channel.archived = False
    await standin.gateway.dispatch("MESSAGE_CREATE", message.payload)
    return ok(message.payload)


async def list_messages(request: web.Request) -> web.Response:
    """A page of a channel's messages."""
    standin, channel = standin_of(request), channel_from(request)
    messages = standin.state.messages_in(channel.id)
    limit = min(int(request.query.get("limit", "50")), 100)
    if "before" in request.query:
        messages = [m for m in messages if m.id < int(request.query["before"])]
    if "after" in request.query:
        messages = [m for m in messages if m.id > int(request.query["after"])][:limit]
    if "around" in request.query:
        pivot = int(request.query["around"])
        older = [m for m in messages if m.id <= pivot][-(limit // 2 + 1) :]
        messages = older + [m for m in messages if m.id > pivot][: limit - len(older)]
    return ok([m.payload for m in reversed(messages[-limit:])])


async def get_message(request: web.Request) -> web.Response:
    """``GET`` one message."""
    return ok(message_from(request, channel_from(request)).payload)


async def patch_message(request: web.Request) -> web.Response:
    """Edit one of the bot's messages."""
    standin, channel = standin_of(request), channel_from(request)
    message = message_from(request, channel)
    if message.author_id != standin.state.bot.id:
        raise ApiError(403, 50005, "Cannot edit a message authored by another user")
    body, uploads = body_of(request), uploads_of(request)
    limits.check_edit(message, body, file_count=len(uploads))
    edit_message(standin.state, message, body, uploads, base_url=standin.base_url)
    await standin.gateway.dispatch("MESSAGE_UPDATE", message.payload)
    return ok(message.payload)


async def delete_message(request: web.Request) -> web.Response:
    """Delete a message."""
    standin, channel = standin_of(request), channel_from(request)
    message = message_from(request, channel)
    guild = standin.state.guild_of(channel)
    if message.author_id != standin.state.bot.id and guild is not None:
        require(standin, guild, MANAGE_MESSAGES, channel)
    message.deleted = True
    data: Json = {"id": str(message.id), "channel_id": str(channel.id)}
    if guild is not None:
        data["guild_id"] = str(guild.id)
    await standin.gateway.dispatch("MESSAGE_DELETE", data)
    return no_content()


async def reaction(request: web.Request) -> web.Response:
    """Add or remove a reaction (accepted, not kept)."""
    message_from(request, channel_from(request))
    return no_content()


async def pin(request: web.Request) -> web.Response:
    """Pin or unpin a message."""
    standin, channel = standin_of(request), channel_from(request)
    message = message_from(request, channel)
    guild = standin.state.guild_of(channel)
    if guild is not None:
        # Pin/Unpin Message: "Requires the PIN_MESSAGES permission"; MANAGE_MESSAGES alone no longer does
        # since 23 February 2026 (change log, 24 November 2025).
        require(standin, guild, VIEW_CHANNEL | PIN_MESSAGES, channel)
    message.payload["pinned"] = request.method == "PUT"
    await standin.gateway.dispatch("MESSAGE_UPDATE", message.payload)
    return no_content()


async def typing(request: web.Request) -> web.Response:
    """Trigger typing (accepted, no effect)."""
    channel_from(request)
    return no_content()


async def get_channel(request: web.Request) -> web.Response:
    """``GET`` a channel: Missing Access when the bot cannot view it (REST never obfuscates; the change
    log's CHANNEL_OBFUSCATED "is only ever set on channels received over the Gateway")."""
    standin, channel = standin_of(request), channel_from(request)
    if not standin.state.bot_can_view(channel):
        raise missing_access()
    return ok(channel.payload())


async def patch_channel(request: web.Request) -> web.Response:
    """Edit a guild channel."""
    standin, channel, body = standin_of(request), channel_from(request), body_of(request)
    guild = standin.state.guild_of(channel)
    if guild is None:
        raise ApiError(403, 50001, "Missing Access")
    if not (channel.is_thread and channel.owner_id == standin.state.bot.id):
        require(standin, guild, MANAGE_THREADS if channel.is_thread else 1 << 4, channel)
    for key in ("name", "topic", "archived", "locked", "auto_archive_duration"):
        if key in body:
            setattr(channel, key, body[key])
    if "applied_tags" in body:
        channel.applied_tags = [int(t) for t in body["applied_tags"]]
    await standin.gateway.dispatch(
        "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", standin.state.bot_view(channel)
    )
    return ok(channel.payload())


# -- threads --------------------------------------------------------------------------------------------------
async def _announce_thread(standin: Host, thread: Channel) -> None:
    thread.thread_members.add(standin.state.bot.id)
    await standin.gateway.dispatch("THREAD_CREATE", {**thread.payload(), "newly_created": True})


async def thread_from_message(request: web.Request) -> web.Response:
    """Start a thread from a message."""
    standin, channel, body = standin_of(request), channel_from(request), body_of(request)
    message = message_from(request, channel)
    guild = standin.state.guild_of(channel)
    if guild is None or channel.is_thread:
        raise ApiError(400, 50024, "Cannot execute action on this channel type")
    require(standin, guild, VIEW_CHANNEL | CREATE_PUBLIC_THREADS, channel)
    limits.check_thread(body)
    if message.id in standin.state.channels:
        raise ApiError(400, 160004, "A thread has already been created for this message")
    thread = standin.state.add_channel(
        Channel(
            id=message.id,
            type=PUBLIC_THREAD,
            name=body["name"],
            guild_id=guild.id,
            parent_id=channel.id,
            owner_id=standin.state.bot.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        )
    )
    message.payload["thread"] = thread.payload()
    message.payload["flags"] = message.flags | (1 << 5)
    await _announce_thread(standin, thread)
    return ok(thread.payload(), status=201)


async def create_thread(request: web.Request) -> web.Response:
    """Start a thread in a channel (a forum post, with its first message, in a forum)."""
    standin, channel, body, uploads = (
        standin_of(request),
        channel_from(request),
        body_of(request),
        uploads_of(request),
    )
    guild = standin.state.guild_of(channel)
    if guild is None or channel.is_thread:
        raise ApiError(400, 50024, "Cannot execute action on this channel type")
    limits.check_thread(body)
    state = standin.state
    if channel.type != GUILD_FORUM:
        require(standin, guild, CREATE_PUBLIC_THREADS, channel)
        thread = state.add_channel(
            Channel(
                id=state.ids.next(),
                type=int(body.get("type") or PUBLIC_THREAD),
                name=body["name"],
                guild_id=guild.id,
                parent_id=channel.id,
                owner_id=state.bot.id,
            )
        )
        await _announce_thread(standin, thread)
        return ok(thread.payload(), status=201)
    # Start Thread in Forum or Media Channel: "The current user must have the SEND_MESSAGES permission
    # (CREATE_PUBLIC_THREADS is ignored)."
    require(standin, guild, VIEW_CHANNEL | SEND_MESSAGES, channel)
    starter = body.get("message")
    if not isinstance(starter, dict):
        raise ApiError(
            400,
            50035,
            "Invalid Form Body",
            {"message": {"_errors": [{"code": "BASE_TYPE_REQUIRED", "message": "This field is required"}]}},
        )
    if len(uploads):
        require(standin, guild, ATTACH_FILES, channel)
    kept = drop_unembeddable(standin, channel, starter, len(uploads))
    limits.check_message(starter, file_count=len(uploads))
    known = {int(t["id"]) for t in channel.available_tags}
    tags = [int(t) for t in body.get("applied_tags") or []]
    if any(t not in known for t in tags):
        raise ApiError(
            400,
            50035,
            "Invalid Form Body",
            {
                "applied_tags": {
                    "_errors": [
                        {"code": "FORUM_TAG_INVALID", "message": "Tag does not exist in this channel"}
                    ]
                }
            },
        )
    thread = Channel(
        id=state.ids.next(),
        type=PUBLIC_THREAD,
        name=body["name"],
        guild_id=guild.id,
        parent_id=channel.id,
        owner_id=state.bot.id,
        applied_tags=tags,
        auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
    )
    state.add_channel(thread)
    message = build_message(state, thread, kept, uploads, base_url=standin.base_url)
    message.payload["id"] = str(thread.id)  # a forum post's starter message shares the thread's id
    state.add_message(message)
    await _announce_thread(standin, thread)
    await standin.gateway.dispatch("MESSAGE_CREATE", message.payload)
    return ok({**thread.payload(), "message": message.payload}, status=201)


async def add_thread_member(request: web.Request) -> web.Response:
    """Add a member (or the bot, for ``@me``) to a thread."""
    standin, thread = standin_of(request), channel_from(request)
    if not thread.is_thread:
        raise ApiError(400, 50024, "Cannot execute action on this channel type")
    raw = request.match_info["user_id"]
    user_id = standin.state.bot.id if raw == "@me" else snowflake(request, "user_id")
    guild = standin.state.guild_of(thread)
    if guild is None or user_id not in guild.members:
        raise not_found("Member", 10007)
    if raw != "@me":
        # Add Thread Member: "Requires the ability to send messages in the thread. Also requires the thread
        # is not archived."
        require(standin, guild, VIEW_CHANNEL | SEND_MESSAGES_IN_THREADS, thread)
    if thread.archived:
        raise ApiError(400, 50083, "Thread is archived")
    thread.thread_members.add(user_id)
    return no_content()


async def remove_thread_member(request: web.Request) -> web.Response:
    """Remove a member (or the bot) from a thread."""
    standin, thread = standin_of(request), channel_from(request)
    raw = request.match_info["user_id"]
    thread.thread_members.discard(standin.state.bot.id if raw == "@me" else snowflake(request, "user_id"))
    return no_content()


# -- polls ----------------------------------------------------------------------------------------------------
async def expire_poll(request: web.Request) -> web.Response:
    """End a poll now."""
    standin, channel = standin_of(request), channel_from(request)
    message = message_from(request, channel)
    poll = message.poll
    if poll is None:
        raise ApiError(400, 520001, "Message has no poll")
    if message.author_id != standin.state.bot.id:
        raise ApiError(403, 50005, "Cannot expire a poll authored by another user")
    poll["expiry"] = iso()
    poll["results"] = standin.poll_results(message, finalized=True)
    await standin.gateway.dispatch("MESSAGE_UPDATE", message.payload)
    return ok(message.payload)


async def poll_voters(request: web.Request) -> web.Response:
    """The users who voted for one answer of a poll."""
    standin, channel = standin_of(request), channel_from(request)
    message = message_from(request, channel)
    answer = int(request.match_info["answer_id"])
    voters = sorted(standin.state.poll_votes.get(message.id, {}).get(answer, set()))
    after = int(request.query.get("after", "0"))
    limit = int(request.query.get("limit", "25"))
    users = [standin.state.users[u].payload() for u in voters if u > after][:limit]
    return ok({"users": users})


# -- DMs and attachments --------------------------------------------------------------------------------------
async def open_dm(request: web.Request) -> web.Response:
    """Open (or return) the DM channel with a user."""
    standin, body = standin_of(request), body_of(request)
    user = standin.state.users.get(int(body.get("recipient_id") or 0))
    if user is None:
        raise not_found("User", 10013)
    return ok(standin.state.dm_channel(user).payload())


async def get_attachment(request: web.Request) -> web.Response:
    """Serve an uploaded attachment's bytes."""
    standin = standin_of(request)
    channel_id, attachment_id = (
        int(request.match_info["channel_id"]),
        int(request.match_info["attachment_id"]),
    )
    for message_id in standin.state.channel_messages.get(channel_id, []):
        data = standin.state.messages[message_id].files.get(attachment_id)
        if data is not None:
            return web.Response(body=data, content_type="application/octet-stream")
    uploaded = standin.state.uploads.get(attachment_id)  # a file a member put in a modal's File Upload
    if uploaded is not None:
        return web.Response(body=uploaded, content_type="application/octet-stream")
    raise web.HTTPNotFound()


def add_routes(app: web.Application) -> None:
    """Register the channel, message, thread, poll and DM routes."""
    msg = "/channels/{channel_id}/messages/{message_id}"
    routes: list[tuple[str, str, Handler]] = [
        ("GET", "/channels/{channel_id}", get_channel),
        ("PATCH", "/channels/{channel_id}", patch_channel),
        ("POST", "/channels/{channel_id}/messages", post_message),
        ("GET", "/channels/{channel_id}/messages", list_messages),
        ("GET", msg, get_message),
        ("PATCH", msg, patch_message),
        ("DELETE", msg, delete_message),
        ("PUT", msg + "/reactions/{emoji}/@me", reaction),
        ("DELETE", msg + "/reactions/{emoji}/@me", reaction),
        ("POST", "/channels/{channel_id}/typing", typing),
        ("PUT", "/channels/{channel_id}/messages/pins/{message_id}", pin),
        ("DELETE", "/channels/{channel_id}/messages/pins/{message_id}", pin),
        ("PUT", "/channels/{channel_id}/pins/{message_id}", pin),
        ("DELETE", "/channels/{channel_id}/pins/{message_id}", pin),
        ("POST", msg + "/threads", thread_from_message),
        ("POST", "/channels/{channel_id}/threads", create_thread),
        ("PUT", "/channels/{channel_id}/thread-members/{user_id}", add_thread_member),
        ("DELETE", "/channels/{channel_id}/thread-members/{user_id}", remove_thread_member),
        ("POST", "/channels/{channel_id}/polls/{message_id}/expire", expire_poll),
        ("GET", "/channels/{channel_id}/polls/{message_id}/answers/{answer_id}", poll_voters),
        ("POST", "/users/@me/channels", open_dm),
    ]
    for method, path, handler in routes:
        app.router.add_route(method, API + path, handler)
    app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", get_attachment)
