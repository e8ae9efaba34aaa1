"""Discord's documented limits, checked the way Discord reports them.

Violations become ``400 {"code": 50035, "message": "Invalid Form Body", "errors": {...}}`` with the
nested ``errors`` tree Discord uses (``{"embeds": {"0": {"title": {"_errors": [...]}}}}``), which
discord.py flattens into ``"In embeds.0.title: Must be 256 or fewer in length."`` (see
:mod:`standin.errors`). Message components are checked in :mod:`standin.components`, modals in
:mod:`standin.modals`.
"""

from __future__ import annotations

from standin import components
from standin.errors import ApiError, FormErrors
from standin.state import IS_COMPONENTS_V2, Json, Message

CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
EMBED_LIMITS = {"title": 256, "description": 4096}
FIELDS_MAX = 25
ATTACHMENTS_MAX = 10
NONCE_MAX = 25
# Application Commands, "Slash Commands": "a maximum of 8000 characters for combined name, description, and
# value properties for each command, its options (including subcommands and groups), and choices".
COMMAND_SIZE_MAX = 8000
# "An app can have the following number of commands: 100 global CHAT_INPUT commands, 15 global USER
# commands, 15 global MESSAGE commands ... the same amount of guild-specific commands per guild" (raised
# from 5 per context-menu type: change log, 3 March 2026, "Updates to Context Menu Commands").
COMMANDS_MAX = {1: 100, 2: 15, 3: 15}


# -- messages -------------------------------------------------------------------------------------------------
def embed_size(embed: Json) -> int:
    """An embed's text length, as Discord counts it against the 6000-character total."""
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    total += len((embed.get("footer") or {}).get("text") or "") + len(
        (embed.get("author") or {}).get("name") or ""
    )
    for fld in embed.get("fields") or []:
        total += len(fld.get("name") or "") + len(fld.get("value") or "")
    return total


def check_embeds(errs: FormErrors, embeds: list[Json], path: str = "embeds") -> None:
    """Check embeds against Discord's count and field-length limits."""
    if len(embeds) > EMBEDS_MAX:
        errs.add([path], "BASE_TYPE_MAX_LENGTH", f"Must be {EMBEDS_MAX} or fewer in length.")
    for i, embed in enumerate(embeds):
        for key, high in EMBED_LIMITS.items():
            errs.length([path, i, key], embed.get(key), high)
        fields = embed.get("fields") or []
        if len(fields) > FIELDS_MAX:
            errs.add([path, i, "fields"], "BASE_TYPE_MAX_LENGTH", f"Must be {FIELDS_MAX} or fewer in length.")
        for j, fld in enumerate(fields):
            errs.length([path, i, "fields", j, "name"], fld.get("name"), 256, 1, required=True)
            errs.length([path, i, "fields", j, "value"], fld.get("value"), 1024, 1, required=True)
        if embed.get("footer"):
            errs.length([path, i, "footer", "text"], embed["footer"].get("text"), 2048)
        if embed.get("author"):
            errs.length([path, i, "author", "name"], embed["author"].get("name"), 256)
        errs.length([path, i, "url"], embed.get("url"), 2048)
    if sum(embed_size(e) for e in embeds) > EMBED_TOTAL_MAX:
        errs.add([path], "MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}")


def check_poll(errs: FormErrors, poll: Json) -> None:
    """Check a poll's question and answers against Discord's limits."""
    errs.length(["poll", "question", "text"], (poll.get("question") or {}).get("text"), 300, 1, required=True)
    answers = poll.get("answers") or []
    errs.length(["poll", "answers"], answers, 10, 1, required=True)
    for i, answer in enumerate(answers):
        errs.length(
            ["poll", "answers", i, "poll_media", "text"], (answer.get("poll_media") or {}).get("text"), 55, 1
        )
    duration = poll.get("duration", 24)
    if not isinstance(duration, int | float) or not float(duration).is_integer() or not 1 <= duration <= 768:
        errs.add(["poll", "duration"], "NUMBER_TYPE_MAX", "int value should be between 1 and 768.")


def _check_body(errs: FormErrors, body: Json, flags: int, file_count: int) -> None:
    errs.length(["content"], body.get("content"), CONTENT_MAX)
    check_embeds(errs, list(body.get("embeds") or []))
    components.check_components(errs, list(body.get("components") or []), flags)
    if body.get("poll"):
        check_poll(errs, body["poll"])
    attachments = body.get("attachments") or []
    if max(len(attachments), file_count) > ATTACHMENTS_MAX:
        errs.add(["attachments"], "BASE_TYPE_MAX_LENGTH", f"Must be {ATTACHMENTS_MAX} or fewer in length.")
    nonce = body.get("nonce")
    if isinstance(nonce, str):
        errs.length(["nonce"], nonce, NONCE_MAX)


def check_message(body: Json, *, file_count: int = 0) -> None:
    """Validate a message create body (channel message, interaction response, follow-up or webhook)."""
    errs = FormErrors()
    flags = int(body.get("flags") or 0)
    _check_body(errs, body, flags, file_count)
    if flags & IS_COMPONENTS_V2:
        components.check_v2_create(errs, body)
    errs.raise_if_any()
    keys = ("content", "embeds", "components", "poll", "sticker_ids")
    if not file_count and not any(body.get(k) for k in keys) and not flags & IS_COMPONENTS_V2:
        raise ApiError(400, 50006, "Cannot send an empty message")


def check_edit(message: Message, body: Json, *, file_count: int = 0) -> None:
    """Validate an edit of ``message`` (channel message, interaction update, webhook or @original edit),
    under the flags the message will have (a Components V2 message stays one)."""
    errs = FormErrors()
    flags = components.edited_flags(message.flags, body.get("flags"))
    _check_body(errs, body, flags, file_count)
    if flags & IS_COMPONENTS_V2:
        components.check_v2_edit(errs, message.payload, body)
    errs.raise_if_any()


def check_choices(choices: list[Json]) -> None:
    """Check autocomplete choices against Discord's limits, raising Invalid Form Body."""
    errs = FormErrors()
    errs.length(["data", "choices"], choices, 25)
    for i, choice in enumerate(choices):
        errs.length(["data", "choices", i, "name"], choice.get("name"), 100, 1, required=True)
        if isinstance(choice.get("value"), str):
            errs.length(["data", "choices", i, "value"], choice["value"], 100)
    errs.raise_if_any()


# -- application commands -------------------------------------------------------------------------------------
def valid_command_name(name: str, *, lowercase: bool) -> bool:
    """Approximates ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$`` (+ lowercase for chat input)."""
    if not 1 <= len(name) <= 32:
        return False
    if lowercase and name != name.lower():
        return False
    return all(
        ch in "-_'" or ch.isalnum() or "\u0900" <= ch <= "\u097f" or "\u0e00" <= ch <= "\u0e7f" for ch in name
    )


def _check_name_desc(errs: FormErrors, path: list[str | int], item: Json, chat: bool) -> None:
    name = item.get("name")
    if not isinstance(name, str):
        errs.add(path + ["name"], "BASE_TYPE_REQUIRED", "This field is required")
    elif chat and not valid_command_name(name, lowercase=True):
        errs.add(path + ["name"], "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    elif not chat and not 1 <= len(name) <= 32:
        errs.add(path + ["name"], "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
    if chat:
        errs.length(path + ["description"], item.get("description"), 100, 1, required=True)
    elif item.get("description"):
        errs.add(
            path + ["description"],
            "APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION",
            "Context menu commands cannot have description",
        )


def _check_options(errs: FormErrors, path: list[str | int], options: list[Json], depth: int) -> int:
    """Validate an options list; returns the characters it contributes to the command's size."""
    size = 0
    errs.length(path, options, 25)
    names: set[str] = set()
    kinds = {o.get("type") in (1, 2) for o in options}
    if len(kinds) > 1:
        errs.add(
            path,
            "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
            "Sub-command and sub-command group option types are mutually exclusive to all other types",
        )
    seen_optional = False
    for i, opt in enumerate(options):
        opath = path + [i]
        _check_name_desc(errs, opath, opt, chat=True)
        size += len(str(opt.get("name") or "")) + len(str(opt.get("description") or ""))
        name = str(opt.get("name"))
        if name in names:
            errs.add(
                opath + ["name"],
                "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS",
                "Option name already exists",
            )
        names.add(name)
        otype = opt.get("type")
        if otype == 2 and depth > 0:
            errs.add(
                opath + ["type"],
                "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                "Sub-command groups can only be nested at the top level",
            )
        if otype == 1 and depth > 1:
            errs.add(
                opath + ["type"],
                "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                "Sub-commands can only be nested in a command or a group",
            )
        if otype == 2 and any(o.get("type") != 1 for o in opt.get("options") or []):
            errs.add(
                opath + ["options"],
                "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                "Sub-command groups may only contain sub-commands",
            )
        if otype in (1, 2):
            size += _check_options(errs, opath + ["options"], list(opt.get("options") or []), depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                errs.add(
                    opath + ["required"],
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        choices = opt.get("choices") or []
        errs.length(opath + ["choices"], choices, 25)
        if choices and opt.get("autocomplete"):
            errs.add(
                opath + ["autocomplete"],
                "APPLICATION_COMMAND_AUTOCOMPLETE_INVALID",
                "Autocomplete cannot be set with choices",
            )
        for k, choice in enumerate(choices):
            errs.length(opath + ["choices", k, "name"], choice.get("name"), 100, 1, required=True)
            if isinstance(choice.get("value"), str):
                errs.length(opath + ["choices", k, "value"], choice["value"], 100)
            size += len(str(choice.get("name"))) + len(str(choice.get("value")))
        for key, low, high in (("min_length", 0, 6000), ("max_length", 1, 6000)):
            value = opt.get(key)
            if value is not None and not low <= int(value) <= high:
                errs.add(opath + [key], "NUMBER_TYPE_MAX", f"int value should be between {low} and {high}.")
    return size


def check_command(errs: FormErrors, path: list[str | int], cmd: Json) -> None:
    """Check one application command's names, descriptions and options."""
    ctype = cmd.get("type", 1)
    chat = ctype == 1
    _check_name_desc(errs, path, cmd, chat=chat)
    options = list(cmd.get("options") or [])
    if not chat and options:
        errs.add(
            path + ["options"],
            "APPLICATION_COMMAND_OPTIONS_INVALID",
            "Context menu commands cannot have options",
        )
    size = len(str(cmd.get("name") or "")) + len(str(cmd.get("description") or ""))
    size += _check_options(errs, path + ["options"], options, 0)
    if size > COMMAND_SIZE_MAX:
        errs.add(path, "APPLICATION_COMMAND_TOO_LARGE", f"Command exceeds maximum size ({COMMAND_SIZE_MAX})")


def check_commands(commands: list[Json]) -> None:
    """Check a command set for invalid or duplicated commands, raising Invalid Form Body."""
    errs = FormErrors()
    keys: set[tuple[int, str]] = set()
    for i, cmd in enumerate(commands):
        check_command(errs, [i], cmd)
        key = (int(cmd.get("type", 1)), str(cmd.get("name")))
        if key in keys:
            errs.add(
                [i, "name"], "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique"
            )
        keys.add(key)
    for ctype, most in COMMANDS_MAX.items():
        if sum(1 for c in commands if int(c.get("type", 1)) == ctype) > most:
            errs.add([], "BASE_TYPE_MAX_LENGTH", f"Must be {most} or fewer in length.")
    errs.raise_if_any()


# -- other bodies ---------------------------------------------------------------------------------------------
def check_scheduled_event(body: Json, *, partial: bool) -> None:
    """Check a scheduled event's fields, raising Invalid Form Body."""
    errs = FormErrors()
    errs.length(["name"], body.get("name"), 100, 1, required=not partial)
    errs.length(["description"], body.get("description"), 1000)
    if body.get("entity_type") == 3 or (not partial and body.get("channel_id") is None):
        location = (body.get("entity_metadata") or {}).get("location")
        errs.length(["entity_metadata", "location"], location, 100, 1, required=not partial)
        if not partial and not body.get("scheduled_end_time"):
            errs.add(["scheduled_end_time"], "BASE_TYPE_REQUIRED", "This field is required")
    if not partial and not body.get("scheduled_start_time"):
        errs.add(["scheduled_start_time"], "BASE_TYPE_REQUIRED", "This field is required")
    errs.raise_if_any()


def check_thread(body: Json) -> None:
    """Check a thread's name and tags, raising Invalid Form Body."""
    errs = FormErrors()
    errs.length(["name"], body.get("name"), 100, 1, required=True)
    errs.length(["applied_tags"], body.get("applied_tags"), 5)
    errs.raise_if_any()
