"""Modals: the rules for opening one (interaction callback type 9) and what a member's submit sends back.

Discord's OpenAPI description holds the shapes; this module holds the rest (discord-api-docs
``developers/components/reference.mdx``, ``developers/interactions/receiving-and-responding.mdx``). The
submit helper sends what Discord's client sends and refuses (``ValueError``) what no client would;
``forged=True`` sends the values as given, as a modified client could, to test that the bot checks each answer.
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Mapping
from typing import Any

from standin.components import assign_ids, check_custom_id, check_ids, check_interactive
from standin.errors import FormErrors
from standin.interactions import resolve_value
from standin.state import Channel, Guild, Json, Member, Role, State, User

# Interaction Response Structure, Modal: "Between 1 and 5 (inclusive) components that make up the modal"
# (the OpenAPI description allows 40: standin.spec_quirks.LOOSER_THAN_DISCORD).
MODAL_COMPONENTS_MAX = 5
TEXT_INPUT, LABEL, TEXT_DISPLAY = 4, 18, 10
STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT = 3, 5, 6, 7, 8
FILE_UPLOAD, RADIO_GROUP, CHECKBOX_GROUP, CHECKBOX = 19, 21, 22, 23
ENTITY_SELECTS = {USER_SELECT: 6, ROLE_SELECT: 8, MENTIONABLE_SELECT: 9, CHANNEL_SELECT: 7}  # -> option type
MULTI = (STRING_SELECT, *ENTITY_SELECTS, FILE_UPLOAD, CHECKBOX_GROUP)
# Reference, "File Type Filtering": the preset groups (a dot-prefixed extension names itself).
FILE_GROUPS = {
    "image": {".png", ".gif", ".jpg", ".jpeg", ".jfif", ".webp", ".avif"},
    "video": {".mp4", ".mov", ".qt", ".webm"},
    "audio": {".mp3", ".m4a", ".wav", ".ogg", ".opus", ".flac"},
}
UPLOAD_SIZE_LIMIT = 25 * 1024 * 1024  # the interaction's attachment_size_limit (standin.interactions)


def _fields(data: Json) -> list[tuple[list[str | int], Json, bool]]:
    """(error path, component, inside a Label) for each input of the modal."""
    found: list[tuple[list[str | int], Json, bool]] = []
    for i, top in enumerate(data.get("components") or []):
        path: list[str | int] = ["data", "components", i]
        if top.get("type") == 1:
            found += [(path + ["components", j], c, False) for j, c in enumerate(top.get("components") or [])]
        elif top.get("type") == LABEL and isinstance(top.get("component"), dict):
            found.append((path + ["component"], top["component"], True))
    return found


def check_modal(data: Json) -> None:
    """Validate the ``data`` of a MODAL callback (type 9)."""
    errs = FormErrors()
    errs.length(["data", "title"], data.get("title"), 45, 1, required=True)
    errs.length(["data", "custom_id"], data.get("custom_id"), 100, 1, required=True)
    components = data.get("components") or []
    errs.length(["data", "components"], components, MODAL_COMPONENTS_MAX, 1, required=True)
    check_ids(errs, components, ["data", "components"])
    for i, top in enumerate(components):
        if top.get("type") == LABEL:  # Label Structure: label "max 45 characters", description "max 100"
            errs.length(["data", "components", i, "label"], top.get("label"), 45, 1, required=True)
            errs.length(["data", "components", i, "description"], top.get("description"), 100)
    seen: set[str] = set()
    for path, comp, in_label in _fields(data):
        _check_field(errs, path, comp, in_label)
        check_custom_id(errs, path, comp, seen)  # the Anatomy rule, read for a modal's inputs too
    errs.raise_if_any()


def _check_field(errs: FormErrors, path: list[str | int], comp: Json, in_label: bool) -> None:
    ctype = comp.get("type")
    errs.length(path + ["custom_id"], comp.get("custom_id"), 100, 1, required=True)
    if ctype == TEXT_INPUT:
        if in_label and comp.get("label") is not None:
            # Change log, 25 August 2025: "When a Text Input is used in a Label component the label field on
            # the Text Input is not allowed in favor of label on the Label component". (Code: the stand-in's.)
            errs.add(path + ["label"], "COMPONENT_FIELD_NOT_ALLOWED", "A text input in a label has no label")
        errs.length(path + ["label"], comp.get("label"), 45, 1, required=not in_label)
        errs.length(path + ["value"], comp.get("value"), 4000)
        errs.length(path + ["placeholder"], comp.get("placeholder"), 100)
        for key, low, high in (("min_length", 0, 4000), ("max_length", 1, 4000)):
            value = comp.get(key)
            if value is not None and not low <= int(value) <= high:
                errs.add(path + [key], "NUMBER_TYPE_MAX", f"int value should be between {low} and {high}.")
        return
    if ctype in (STRING_SELECT, *ENTITY_SELECTS):
        check_interactive(errs, path, comp, set())
        if comp.get("disabled"):
            # Each select's Structure: "Using disabled in a modal will result in an error. Modals can not
            # currently have disabled components in them." (discord.py sends disabled: false, accepted.)
            errs.add(
                path + ["disabled"], "COMPONENT_FIELD_NOT_ALLOWED", "Modals cannot have disabled components"
            )
        defaults = comp.get("default_values") or []
        low, high = _int(comp.get("min_values"), 1), _int(comp.get("max_values"), 1)
        if defaults and not low <= len(defaults) <= high:
            # Select Structure, default_values: "number of default values must be in the range defined by
            # min_values and max_values".
            errs.add(path + ["default_values"], "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high}.")
    if ctype in MULTI and comp.get("required") is not False and comp.get("min_values") == 0:
        # Select, File Upload and Checkbox Group Structures: "min_values must be either omitted or at least 1
        # if required is omitted or true".
        errs.add(path + ["min_values"], "NUMBER_TYPE_MIN", "min_values must be at least 1 when required")


def _int(value: Any, default: int) -> int:
    return default if value is None else int(value)


def open_modal(data: Json) -> Json:
    """The modal as Discord keeps it: the ids it fills in (Anatomy of a Component) on a copy."""
    modal = {**data, "components": [dict(c) for c in data.get("components") or []]}
    for top in modal["components"]:
        if isinstance(top.get("component"), dict):
            top["component"] = dict(top["component"])
        if isinstance(top.get("components"), list):
            top["components"] = [dict(c) for c in top["components"]]
    assign_ids(modal["components"])
    return modal


# -- submitting -----------------------------------------------------------------------------------------------
class _Submit:
    """One submission: the answers mirrored on the modal's layout, and their ``resolved`` entities."""

    def __init__(
        self, state: State, channel: Channel, base_url: str, values: Mapping[str, Any], forged: bool
    ) -> None:
        self.state, self.channel, self.base_url = state, channel, base_url
        self.guild: Guild | None = state.guild_of(channel)
        self.values, self.forged = values, forged
        self.resolved: Json = {}

    def refuse(self, comp: Json, why: str) -> None:
        if not self.forged:
            raise ValueError(
                f"field {comp.get('custom_id')!r}: {why} (no Discord client sends that; pass forged=True)"
            )

    def answer(self, comp: Json) -> Json:
        ctype, cid = int(comp["type"]), str(comp.get("custom_id"))
        out: Json = {"type": ctype, "id": comp.get("id"), "custom_id": cid}
        given = self.values.get(cid)
        if ctype == TEXT_INPUT:  # Text Input Interaction Response: "value", the user's input text
            text = str(given if given is not None else comp.get("value") or "")
            self._text(comp, text)
            out["value"] = text
        elif ctype == CHECKBOX:  # Checkbox Interaction Response: "value", true if checked
            checked = bool(comp.get("default")) if given is None else given
            if not isinstance(checked, bool):
                self.refuse(comp, f"a checkbox is checked or not, not {checked!r}")
            out["value"] = checked
        elif ctype == RADIO_GROUP:  # Radio Group Interaction Response: "value", or null when none selected
            chosen = given if given is not None else _default_options(comp)[:1]
            picked = chosen if isinstance(chosen, list) else [chosen]
            self._choices(comp, picked, 0 if comp.get("required") is False else 1, 1)
            out["value"] = str(picked[0]) if picked else None
        elif ctype in (STRING_SELECT, CHECKBOX_GROUP):  # "values": the selected options' values
            picked = _as_list(given) if given is not None else _default_options(comp)
            default_high = len(comp.get("options") or []) if ctype == CHECKBOX_GROUP else 1
            self._choices(comp, picked, *self._range(comp, default_high))
            out["values"] = [str(v) for v in picked]
        elif ctype in ENTITY_SELECTS:  # "values": ids, each in data.resolved
            picked = _as_list(given) if given is not None else self._defaults(comp)
            self._entities(comp, picked)
            out["values"] = [self._resolve(ENTITY_SELECTS[ctype], value) for value in picked]
        elif ctype == FILE_UPLOAD:  # "values": attachment ids, each in data.resolved.attachments
            files = _as_list(given) if given is not None else []
            self._count(comp, len(files), *self._range(comp, 1))
            out["values"] = [self._upload(comp, f) for f in files]
        return out

    # -- what a client would send ------------------------------------------------------------------------
    def _text(self, comp: Json, text: str) -> None:
        if comp.get("required", True) is not False and not text:
            self.refuse(comp, "a required text input left empty")
        low, high = comp.get("min_length"), comp.get("max_length")
        if text and ((low is not None and len(text) < low) or (high is not None and len(text) > high)):
            self.refuse(comp, f"{len(text)} characters, outside {low}…{high}")

    def _range(self, comp: Json, default_high: int) -> tuple[int, int]:
        required = comp.get("required") is not False
        low = _int(comp.get("min_values"), 1)
        return (low if required else 0), _int(comp.get("max_values"), default_high)

    def _count(self, comp: Json, count: int, low: int, high: int) -> None:
        if not low <= count <= high:
            self.refuse(comp, f"{count} chosen, outside {low}…{high}")

    def _choices(self, comp: Json, picked: list[Any], low: int, high: int) -> None:
        self._count(comp, len(picked), low, high)
        allowed = [str(o.get("value")) for o in comp.get("options") or []]
        for value in picked:
            if str(value) not in allowed:
                self.refuse(comp, f"{value!r} is not one of its options {allowed}")

    def _entities(self, comp: Json, picked: list[Any]) -> None:
        self._count(comp, len(picked), *self._range(comp, 1))
        ctype = int(comp["type"])
        kinds = {
            USER_SELECT: (Member, User),
            ROLE_SELECT: (Role,),
            MENTIONABLE_SELECT: (Member, User, Role),
            CHANNEL_SELECT: (Channel,),
        }[ctype]
        for value in picked:
            if not isinstance(value, kinds):
                self.refuse(comp, f"{value!r} is not a {'/'.join(k.__name__ for k in kinds)}")
            elif (
                isinstance(value, Channel)
                and comp.get("channel_types")
                and value.type not in comp["channel_types"]
            ):
                self.refuse(comp, f"#{value.name} is not of the types {comp['channel_types']}")

    def _defaults(self, comp: Json) -> list[Any]:
        out: list[Any] = []
        for default in comp.get("default_values") or []:
            ident, kind = int(default["id"]), default.get("type")
            if kind == "role" and self.guild is not None:
                out.append(self.guild.roles[ident])
            elif kind == "channel":
                out.append(self.state.channels[ident])
            else:
                out.append(self.state.users[ident])
        return out

    def _resolve(self, option_type: int, value: Any) -> str:
        return str(resolve_value(self.state, self.guild, option_type, value, self.resolved, self.channel))

    def _upload(self, comp: Json, upload: Any) -> str:
        if isinstance(upload, dict):  # an attachment object, as given
            attachment = dict(upload)
        else:
            filename, data, *rest = upload
            attachment = self._attachment(str(filename), bytes(data), rest[0] if rest else None)
        types = comp.get("file_types") or []
        if types and not _file_type_ok(str(attachment.get("filename")), types):
            self.refuse(comp, f"{attachment.get('filename')!r} is not of the types {types}")
        if int(attachment.get("size") or 0) > UPLOAD_SIZE_LIMIT:
            self.refuse(comp, "a file over the member's upload limit")
        self.resolved.setdefault("attachments", {})[str(attachment["id"])] = attachment
        return str(attachment["id"])

    def _attachment(self, filename: str, data: bytes, content_type: str | None) -> Json:
        """An uploaded file as Discord hands it over: an ephemeral attachment the bot can download."""
        ident = self.state.ids.next()
        self.state.uploads[ident] = data
        url = f"{self.base_url}/attachments/{self.channel.id}/{ident}/{filename}"
        return {
            "id": str(ident),
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type or mimetypes.guess_type(filename)[0] or "application/octet-stream",
            "ephemeral": True,
        }


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) and not _is_file(value) else [value]


def _is_file(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) in (2, 3) and isinstance(value[1], bytes)


def _default_options(comp: Json) -> list[Any]:
    return [o.get("value") for o in comp.get("options") or [] if o.get("default")]


def _file_type_ok(filename: str, types: list[str]) -> bool:
    """File Type Filtering: a group name or a dot-prefixed extension, matched case-insensitively against the
    file's extension only."""
    extension = os.path.splitext(filename)[1].lower()
    return any(extension in FILE_GROUPS.get(t, {t.lower()}) for t in types)


def submission(
    state: State,
    modal: Json,
    values: Mapping[str, Any],
    channel: Channel,
    base_url: str,
    *,
    forged: bool = False,
) -> Json:
    """``data`` of a MODAL_SUBMIT interaction: the modal's layout mirrored with each field's answer (Label ->
    component -> ``value`` / ``values``; a Text Display as ``{type, id}``), plus ``resolved`` for the entity
    selects and uploaded files (Modal Submit Data Structure; each component's "Interaction Response
    Structure" and "Modal Submit Interaction Data Example"). Values by field custom_id: text as ``str``; a
    select, radio or checkbox group as the chosen value(s); entity selects as Members/Users/Roles/Channels;
    a checkbox as ``bool``; a file upload as ``(filename, bytes[, content type])`` tuples. A field not given
    keeps what the client shows pre-filled (the text input's value, the default options)."""
    submit = _Submit(state, channel, base_url, values, forged)
    fields = {str(c.get("custom_id")) for _, c, _ in _fields({"components": modal.get("components")})}
    unknown = set(values) - fields
    if unknown:
        raise ValueError(f"modal {modal.get('custom_id')!r} has no fields {sorted(unknown)}")
    rows: list[Json] = []
    for top in modal.get("components") or []:
        ctype = top.get("type")
        if ctype == 1:
            inner = [submit.answer(c) for c in top.get("components") or []]
            rows.append({"type": 1, "id": top.get("id"), "components": inner})
        elif ctype == LABEL and isinstance(top.get("component"), dict):
            rows.append({"type": LABEL, "id": top.get("id"), "component": submit.answer(top["component"])})
        elif ctype == TEXT_DISPLAY:
            rows.append({"type": TEXT_DISPLAY, "id": top.get("id")})
    data: Json = {"custom_id": modal["custom_id"], "components": rows}
    if submit.resolved:
        data["resolved"] = submit.resolved
    return data
