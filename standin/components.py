"""Message components as Discord checks them: legacy action rows, Components V2 layouts, component ids.

Each component's own shape is checked by Discord's OpenAPI description (:mod:`standin.openapi`); this module
holds what a schema cannot say: which components a message may use (the ``IS_COMPONENTS_V2`` flag), the
totals over a whole message, uniqueness, and the flag's lifetime. Docs cited: discord-api-docs
``developers/components/reference.mdx``, ``developers/resources/message.mdx``, ``developers/change-log.mdx``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from standin.errors import FormErrors
from standin.state import IS_COMPONENTS_V2, Json

SUPPRESS_EMBEDS = 1 << 2
# Edit Message, JSON/Form Params: "flags ... (SUPPRESS_EMBEDS and IS_COMPONENTS_V2 only)"; "unsupported flag
# changes are currently ignored without error". The same list for Edit Webhook Message (and so for
# Edit Original Interaction Response).
EDITABLE_FLAGS = SUPPRESS_EMBEDS | IS_COMPONENTS_V2

LEGACY_ROWS_MAX = 5  # Legacy Message Component Behavior: "Legacy messages allow up to 5 action rows"
BUTTONS_PER_ROW = 5  # Action Row: "Up to 5 contextually grouped buttons" or "A single select component"
SELECT_OPTIONS_MAX = 25  # String Select Structure: options "max 25"
# Change log, 29 April 2025, "Raised Component Limits": "The limit for total components in a message has
# been increased to 40" with IS_COMPONENTS_V2, and "There is no longer a limit on top level components";
# Component Reference: "Messages allow up to 40 total components". Counted as discord.py's LayoutView counts
# them (and as the change log's "total" reads): every component, nested ones, a Section's accessory and
# the buttons in a row included.
V2_COMPONENTS_MAX = 40
# "The character count of all text display components in a message may total up to 4000 characters"
# (discord/discord-api-docs#8562, August 2026, documenting the API's behaviour; discord.py 2.7
# LayoutView.content_length: "A view is allowed to have a maximum of 4000 display characters across all
# its items", counting Text Display content only, not button labels or alt text). Counted in code points.
V2_TEXT_MAX = 4000
SELECT_TYPES = (3, 5, 6, 7, 8)
ROW_CHILD_TYPES = (2, *SELECT_TYPES)

# Create Message: "When the flag IS_COMPONENTS_V2 is set, the message can only contain components.
# Providing content, embeds, sticker_ids, poll, or shared_client_theme will fail with a 400 BAD REQUEST
# response." Component Reference adds "The poll and stickers fields are disabled". Discord's error
# (code and wording as its API answers, seen in many bots' logs): content[MESSAGE_CANNOT_USE_LEGACY_FIELDS_
# WITH_COMPONENTS_V2]: "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2".
LEGACY_FIELDS = ("content", "embeds", "sticker_ids", "poll", "shared_client_theme")
LEGACY_FIELD_USED = "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2"


def is_v2(flags: int) -> bool:
    """Whether message flags mark a components-v2 message."""
    return bool(flags & IS_COMPONENTS_V2)


def is_empty(value: Any) -> bool:
    """No value: absent, null, ``""`` or ``[]`` (an empty message's content is ``""``)."""
    return value is None or value == "" or value == []


# -- walking a component tree ---------------------------------------------------------------------------------
def _children(comp: Json, here: list[str | int]) -> Iterator[tuple[list[str | int], Json]]:
    for j, child in enumerate(comp.get("components") or []):
        if isinstance(child, dict):
            yield [*here, "components", j], child
    for key in ("accessory", "component"):  # a Section's accessory, a Label's component
        if isinstance(comp.get(key), dict):
            yield [*here, key], comp[key]


def walk(items: Sequence[Any], path: Sequence[str | int] = ("components",)) -> Iterator[tuple[list, Json]]:
    """Every component with its error path, depth first, a parent before its children (rows, containers,
    sections with their accessory, labels with their component)."""

    def visit(here: list[str | int], comp: Json) -> Iterator[tuple[list, Json]]:
        yield here, comp
        for child_path, child in _children(comp, here):
            yield from visit(child_path, child)

    for i, comp in enumerate(items):
        if isinstance(comp, dict):
            yield from visit([*path, i], comp)


def text_displays(components: Sequence[Any]) -> list[str]:
    """The content of each Text Display, in reading order."""
    return [str(c.get("content") or "") for _, c in walk(components) if c.get("type") == 10]


def text_length(components: Sequence[Any]) -> int:
    """Total length of all text displays in a component tree."""
    return sum(len(text) for text in text_displays(components))


# -- component ids --------------------------------------------------------------------------------------------
# Anatomy of a Component: "The id must be unique within the message and is generated sequentially if left
# empty. Generation of ids won't use another id that exists in the message if you have one defined for
# another component. Sending components with an id of 0 is allowed but will be treated as empty and
# replaced by the API." (The error code for a duplicate is the stand-in's own: the docs give the rule only.)
def check_ids(
    errs: FormErrors, components: Sequence[Any], path: Sequence[str | int] = ("components",)
) -> None:
    """Record an error for each duplicated component ``id`` in the tree."""
    seen: set[int] = set()
    for here, comp in walk(components, path):
        ident = comp.get("id")
        if isinstance(ident, int) and not isinstance(ident, bool) and ident:
            if ident in seen:
                errs.add([*here, "id"], "COMPONENT_ID_DUPLICATED", "Component id cannot be duplicated")
            seen.add(ident)


def assign_ids(components: list[Json]) -> list[Json]:
    """The ids Discord fills in: 1, 2, 3… in reading order, skipping ids the sender gave (mutates)."""
    tree = list(walk(components))
    used = {c["id"] for _, c in tree if isinstance(c.get("id"), int) and c["id"]}
    next_id = 1
    for _, comp in tree:
        if not comp.get("id"):
            while next_id in used:
                next_id += 1
            comp["id"] = next_id
            used.add(next_id)
    return components


# -- interactive components -----------------------------------------------------------------------------------
def check_custom_id(errs: FormErrors, path: list[str | int], comp: Json, seen: set[str]) -> None:
    """Anatomy of a Component, Custom ID: "Multiple components on the same message must not share the same
    custom_id" (Discord answers COMPONENT_CUSTOM_ID_DUPLICATED)."""
    custom_id = comp.get("custom_id")
    if isinstance(custom_id, str):
        if custom_id in seen:
            errs.add(
                [*path, "custom_id"],
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.add(custom_id)


def check_interactive(errs: FormErrors, path: list[str | int], comp: Json, seen: set[str]) -> None:
    """Check one interactive component's fields as Discord validates them."""
    ctype = comp.get("type")
    if ctype == 2:  # Button Structure: a link button needs a url, others (but premium) a custom_id
        if comp.get("style") == 5:
            errs.length([*path, "url"], comp.get("url"), 512, 1, required=True)
        elif comp.get("style") != 6:
            errs.length([*path, "custom_id"], comp.get("custom_id"), 100, 1, required=True)
        errs.length([*path, "label"], comp.get("label"), 80)
    elif ctype in SELECT_TYPES:
        errs.length([*path, "custom_id"], comp.get("custom_id"), 100, 1, required=True)
        errs.length([*path, "placeholder"], comp.get("placeholder"), 150)
        if ctype == 3:
            options = comp.get("options") or []
            errs.length([*path, "options"], options, SELECT_OPTIONS_MAX, 1, required=True)
            for k, opt in enumerate(options):
                errs.length([*path, "options", k, "label"], opt.get("label"), 100, 1, required=True)
                errs.length([*path, "options", k, "value"], opt.get("value"), 100, 1, required=True)
                errs.length([*path, "options", k, "description"], opt.get("description"), 100)
    check_custom_id(errs, path, comp, seen)


def check_row(errs: FormErrors, path: list[str | int], row: Json) -> None:
    """Action Row: "Up to 5 contextually grouped buttons" or "A single select component"."""
    children = row.get("components") or []
    errs.length([*path, "components"], children, BUTTONS_PER_ROW, 1, required=True)
    if any(c.get("type") != 2 for c in children) and len(children) > 1:
        errs.add(
            [*path, "components"],
            "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
            "The specified component exceeds the maximum width",
        )


# -- a message's components -----------------------------------------------------------------------------------
def check_components(errs: FormErrors, components: list[Json], flags: int) -> None:
    """The components of a message create or edit body, legacy or (with the flag) Components V2."""
    seen: set[str] = set()
    check_ids(errs, components)
    if is_v2(flags):
        count = 0
        for path, comp in walk(components):
            count += 1
            check_interactive(errs, path, comp, seen)
            if comp.get("type") == 1:
                check_row(errs, path, comp)
            url = str((comp.get("file") or {}).get("url") or "")
            if comp.get("type") == 13 and not url.startswith("attachment://"):
                # File Structure: its media item "only supports attachment references using the
                # attachment://<filename> syntax". (Code: the stand-in's.)
                errs.add(
                    [*path, "file", "url"], "UNFURLED_MEDIA_ITEM_INVALID", "A file must be an attachment"
                )
        if count > V2_COMPONENTS_MAX:
            errs.add(
                ["components"], "BASE_TYPE_MAX_LENGTH", f"Must be {V2_COMPONENTS_MAX} or fewer in length."
            )
        if text_length(components) > V2_TEXT_MAX:
            # The code is Discord's for a length; the wording is the stand-in's (the docs give the rule).
            errs.add(
                ["components"],
                "BASE_TYPE_MAX_LENGTH",
                f"The text displays of a message must total {V2_TEXT_MAX} or fewer characters.",
            )
        return
    # Legacy Message Component Behavior: "Legacy messages allow up to 5 action rows as top-level components";
    # the layout components need the flag ("To use this component in messages you must send the message flag
    # 1 << 15 (IS_COMPONENTS_V2)", on each of them). Discord reads such a body as legacy and answers
    # UNION_TYPE_CHOICES for any other top-level type.
    if len(components) > LEGACY_ROWS_MAX:
        errs.add(["components"], "BASE_TYPE_MAX_LENGTH", f"Must be {LEGACY_ROWS_MAX} or fewer in length.")
    for i, row in enumerate(components):
        if row.get("type") != 1:
            errs.add(["components", i, "type"], "UNION_TYPE_CHOICES", 'Value of field "type" must be 1.')
            continue
        check_row(errs, ["components", i], row)
        for j, comp in enumerate(row.get("components") or []):
            check_interactive(errs, ["components", i, "components", j], comp, seen)


def _legacy_field_used(errs: FormErrors, key: str) -> None:
    errs.add(
        [key], LEGACY_FIELD_USED, f"The '{key}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"
    )


def check_v2_create(errs: FormErrors, body: Json) -> None:
    """A new Components V2 message carries nothing but components (and files, for its File components)."""
    for key in LEGACY_FIELDS:
        if not is_empty(body.get(key)):
            _legacy_field_used(errs, key)


def edited_flags(current: int, requested: Any) -> int:
    """The flags a message has after an edit asking for ``requested`` (None: unchanged). Only
    SUPPRESS_EMBEDS and IS_COMPONENTS_V2 may change, and the latter only be set: Message Flags, "Once a
    message has been sent with this flag, it can't be removed from that message"; Edit Message, "the
    IS_COMPONENTS_V2 flag can only be set", and unsupported flag changes "are currently ignored without
    error" (so an edit without the flag leaves it set, and the edit is then held to V2's rules)."""
    if requested is None:
        return current
    return (current & ~EDITABLE_FLAGS) | (int(requested) & EDITABLE_FLAGS) | (current & IS_COMPONENTS_V2)


def check_v2_edit(errs: FormErrors, current: Json, body: Json) -> None:
    """An edit that leaves a message Components V2, converting a classic message or editing a V2 one.

    Edit Message: "When the IS_COMPONENTS_V2 flag is set, any of the used content, embeds, sticker_ids, or
    poll fields must have their values reset to empty. For content and poll this is null. For embeds and
    sticker_ids this is []. Failing to do this will result in a 400 BAD REQUEST response." So an old embed
    post converts in one edit that clears its content and embeds. ``embeds: null`` does not clear them
    for this rule (discord/discord-api-docs#7787: only ``[]`` worked; the docs were fixed to say so in
    #7852); ``content: ""`` is taken as empty like null (a message without content has ``""``)."""
    if "content" in body:
        if not is_empty(body["content"]):
            _legacy_field_used(errs, "content")
    elif current.get("content"):
        _legacy_field_used(errs, "content")
    if body.get("embeds") is not None:
        if body["embeds"]:
            _legacy_field_used(errs, "embeds")
    elif current.get("embeds"):
        _legacy_field_used(errs, "embeds")
    if "poll" in body:
        if body["poll"] is not None:
            _legacy_field_used(errs, "poll")
    elif current.get("poll"):
        _legacy_field_used(errs, "poll")
    if body.get("sticker_ids"):  # the stand-in keeps no stickers, so only sending some can fail
        _legacy_field_used(errs, "sticker_ids")


def mention_text(payload: Json) -> str:
    """The text whose mentions a message carries. Edit Message: "When the message flag IS_COMPONENTS_V2 is
    set, the reconstructed arrays and boolean are based on the edited content in the components array";
    Text Display: its mentions "will ping and send notifications based on the value of the allowed
    mention object"."""
    if is_v2(int(payload.get("flags") or 0)):
        return "\n".join(text_displays(list(payload.get("components") or [])))
    return str(payload.get("content") or "")
