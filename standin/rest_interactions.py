"""Interaction callbacks and the interaction webhook (original response and follow-ups)."""

from __future__ import annotations

from aiohttp import web

from standin import limits
from standin.errors import ApiError, FormErrors
from standin.host import Host
from standin.interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PING,
    InteractionRecord,
    ModalRef,
    Response,
)
from standin.messages import Upload, build_message, edit_message
from standin.modals import check_modal, open_modal
from standin.rest import API, Handler, body_of, no_content, ok, snowflake, standin_of, uploads_of
from standin.state import EPHEMERAL, LOADING, Json, Message

UNKNOWN_INTERACTION = (404, 10062, "Unknown interaction")
ALLOWED_RESPONSES: dict[int, set[int]] = {
    PING: {1},
    APPLICATION_COMMAND: {4, 5, 9},
    MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
    AUTOCOMPLETE: {8},
    MODAL_SUBMIT: {4, 5, 6, 7},
}


async def _fail(record: InteractionRecord | None, status: int, code: int, message: str) -> ApiError:
    error = ApiError(status, code, message)
    if record is not None:
        record.errors.append(error.body)
        await record.notify()
    return error


async def callback(request: web.Request) -> web.Response:
    """Take the first answer to an interaction (reply, deferral, update, modal, choices)."""
    standin = standin_of(request)
    record = standin.interactions.get(snowflake(request, "interaction_id"))
    if record is None or record.token != request.match_info["token"]:
        raise await _fail(None, *UNKNOWN_INTERACTION)
    if record.response is not None:
        raise await _fail(record, 400, 40060, "Interaction has already been acknowledged.")
    if standin.clock() - record.created_at > standin.interaction_deadline:
        raise await _fail(record, *UNKNOWN_INTERACTION)
    body, uploads = body_of(request), uploads_of(request)
    rtype = int(body.get("type") or 0)
    data: Json = dict(body.get("data") or {})
    if rtype not in ALLOWED_RESPONSES.get(record.type, set()):
        raise await _fail(record, 400, 50035, "Invalid Form Body")
    try:
        message = await _apply(standin, record, rtype, data, uploads)
    except ApiError as exc:
        record.errors.append(exc.body)
        await record.notify()
        raise
    record.response = Response(type=rtype, data=data, message=message)
    await record.notify()
    if request.query.get("with_response") not in ("1", "true", "True"):
        return no_content()
    interaction: Json = {"id": str(record.id), "type": record.type}
    resource: Json = {"type": rtype}
    if message is not None:
        interaction.update(
            {
                "response_message_id": str(message.id),
                "response_message_loading": rtype == 5,
                "response_message_ephemeral": message.ephemeral,
            }
        )
        resource["message"] = message.payload
    return ok({"interaction": interaction, "resource": resource})


async def _apply(
    standin: Host, record: InteractionRecord, rtype: int, data: Json, uploads: list[Upload]
) -> Message | None:
    state = standin.state
    channel = state.channels[record.channel_id]
    if rtype in (4, 5):
        if rtype == 4:
            limits.check_message(data, file_count=len(uploads))
        else:
            _check_defer_flags(data)
            data = {"flags": int(data.get("flags") or 0) & EPHEMERAL}
        message = state.add_message(
            build_message(
                state,
                channel,
                data,
                uploads if rtype == 4 else [],
                base_url=standin.base_url,
                interaction=record.metadata(),
                loading=rtype == 5,
            )
        )
        record.original = message
        if rtype == 4:
            record.final = message
        if not message.ephemeral:
            await standin.gateway.dispatch("MESSAGE_CREATE", message.payload)
        return message
    if rtype in (6, 7):
        if record.source is None:
            raise ApiError(400, 50035, "Invalid Form Body")
        record.original = record.source
        if rtype == 7:
            limits.check_edit(record.source, data, file_count=len(uploads))
            edit_message(state, record.source, data, uploads, base_url=standin.base_url)
            record.final = record.source
            if not record.source.ephemeral:
                await standin.gateway.dispatch("MESSAGE_UPDATE", record.source.payload)
        return None
    if rtype == 8:
        limits.check_choices(list(data.get("choices") or []))
        return None
    if rtype == 9:
        check_modal(data)
        data.update(open_modal(data))  # the response records the modal as Discord keeps it (ids filled in)
        standin.modals.append(ModalRef(modal=data, channel_id=record.channel_id, source=record.source))
    return None


def _check_defer_flags(data: Json) -> None:
    """Interaction Callback Data, Messages: with DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE "the only valid message
    flag you may use is EPHEMERAL. If you'd like to create a component based message with IS_COMPONENTS_V2
    you must do that with the edit original response endpoint, not this one." (Code: the stand-in's.)"""
    if int(data.get("flags") or 0) & ~EPHEMERAL:
        errs = FormErrors()
        errs.add(
            ["data", "flags"], "INTERACTION_FLAGS_INVALID", "Only EPHEMERAL may be set on a deferred reply"
        )
        errs.raise_if_any()


# -- interaction webhook --------------------------------------------------------------------------------------
def _record_for(request: web.Request) -> InteractionRecord:
    standin = standin_of(request)
    if snowflake(request, "app_id") != standin.state.application_id:
        raise ApiError(404, 10015, "Unknown Webhook")
    record = standin.by_token.get(request.match_info["token"])
    if record is None or standin.clock() - record.created_at > standin.token_lifetime:
        raise ApiError(401, 50027, "Invalid Webhook Token")
    return record


def _target(request: web.Request, record: InteractionRecord) -> Message:
    raw = request.match_info["message_id"]
    if raw == "@original":
        if record.original is None:
            raise ApiError(404, 10008, "Unknown Message")
        return record.original
    message = standin_of(request).state.messages.get(snowflake(request, "message_id"))
    if message is None or message.deleted:
        raise ApiError(404, 10008, "Unknown Message")
    return message


async def followup(request: web.Request) -> web.Response:
    """Send a followup message to an interaction."""
    standin = standin_of(request)
    record = _record_for(request)
    if record.response is None:
        raise ApiError(404, 10015, "Unknown Webhook")
    body, uploads = body_of(request), uploads_of(request)
    limits.check_message(body, file_count=len(uploads))
    state = standin.state
    original = record.original
    if record.response.type == 5 and original is not None and original.flags & LOADING and not original.edits:
        # Discord turns the first follow-up after a "thinking" defer into the deferred response itself.
        edit_message(state, original, body, uploads, base_url=standin.base_url)
        message = original
        dispatch = "MESSAGE_UPDATE"
    else:
        message = state.add_message(
            build_message(
                state,
                state.channels[record.channel_id],
                body,
                uploads,
                base_url=standin.base_url,
                interaction=record.metadata(),
            )
        )
        dispatch = "MESSAGE_CREATE"
    record.followups.append(message)
    if record.final is None:
        record.final = message
    if not message.ephemeral:
        await standin.gateway.dispatch(dispatch, message.payload)
    await record.notify()
    if request.query.get("wait") in ("true", "1", "True"):
        return ok(message.payload)
    return no_content()


async def get_webhook_message(request: web.Request) -> web.Response:
    """``GET`` an interaction's original response or a followup."""
    return ok(_target(request, _record_for(request)).payload)


async def patch_webhook_message(request: web.Request) -> web.Response:
    """Edit an interaction's original response or a followup."""
    standin = standin_of(request)
    record = _record_for(request)
    message = _target(request, record)
    body, uploads = body_of(request), uploads_of(request)
    limits.check_edit(message, body, file_count=len(uploads))
    edit_message(standin.state, message, body, uploads, base_url=standin.base_url)
    if record.final is None and message is record.original:
        record.final = message
    if not message.ephemeral:
        await standin.gateway.dispatch("MESSAGE_UPDATE", message.payload)
    await record.notify()
    return ok(message.payload)


async def delete_webhook_message(request: web.Request) -> web.Response:
    """Delete an interaction's original response or a followup."""
    standin = standin_of(request)
    record = _record_for(request)
    message = _target(request, record)
    message.deleted = True
    await record.notify()
    if not message.ephemeral:
        data: Json = {"id": str(message.id), "channel_id": str(message.channel_id)}
        if record.guild_id:
            data["guild_id"] = str(record.guild_id)
        await standin.gateway.dispatch("MESSAGE_DELETE", data)
    return no_content()


def add_routes(app: web.Application) -> None:
    """Register the interaction callback and webhook routes."""
    hook = "/webhooks/{app_id}/{token}"
    routes: list[tuple[str, str, Handler]] = [
        ("POST", "/interactions/{interaction_id}/{token}/callback", callback),
        ("POST", hook, followup),
        ("GET", hook + "/messages/{message_id}", get_webhook_message),
        ("PATCH", hook + "/messages/{message_id}", patch_webhook_message),
        ("DELETE", hook + "/messages/{message_id}", delete_webhook_message),
    ]
    for method, path, handler in routes:
        app.router.add_route(method, API + path, handler)
