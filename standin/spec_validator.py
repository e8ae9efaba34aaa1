"""The jsonschema side of the stand-in's OpenAPI checks: the validator class, the formats it checks, and
an equivalent rewrite of the spec's discriminated unions that makes them fast and their errors precise.

``SpecValidator`` is Draft 2020-12 (OpenAPI 3.1's dialect) plus one keyword, ``x-standin-union``, that
``dispatch_unions`` puts where the spec has a union of object branches told apart by a required ``type``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

UNION_KEYWORD = "x-standin-union"  # see dispatch_unions


# -- formats: jsonschema checks none unless asked; these are the ones Discord's spec uses ------------------
FORMATS = jsonschema.FormatChecker(formats=())
_INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")


@FORMATS.checks("date-time", raises=ValueError)
def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    return len(value) > 10 and value[10] in "Tt "  # a date and a time, not a bare date


@FORMATS.checks("uri")
def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or bool(_URI.match(value))


def _int_format(name: str) -> None:
    low, high = _INT_RANGES[name]

    @FORMATS.checks(name)
    def check(value: object) -> bool:
        return not isinstance(value, int) or isinstance(value, bool) or low <= value <= high


for _name in _INT_RANGES:
    _int_format(_name)


# -- the validator: Draft 2020-12 (OpenAPI 3.1's dialect) plus the union dispatch of dispatch_unions ----
def _union(validator: Any, branches: dict[str, Any], instance: Any, schema: Any) -> Iterator[ValidationError]:
    """Validate an object against the one branch its ``type`` selects (a missing or unknown ``type`` is
    reported by the ``required`` and ``enum`` beside this keyword)."""
    if isinstance(instance, dict) and "type" in instance:
        branch = branches.get(repr(instance["type"]))
        if branch is not None:
            yield from validator.descend(instance, branch)


SpecValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {UNION_KEYWORD: _union})


# -- discriminated unions ----------------------------------------------------------------------------------
def _discriminator(document: dict[str, Any], branch: Any) -> list[Any] | None:
    """The ``type`` values a union branch accepts (``properties.type`` an ``enum`` or a ``const``, and
    ``type`` required), or None when the branch is not of that form."""
    for _ in range(8):
        if not (isinstance(branch, dict) and "$ref" in branch):
            break
        ref = branch["$ref"]
        if not ref.startswith("#/components/schemas/"):
            return None
        branch = document["components"]["schemas"].get(ref.rsplit("/", 1)[1])
    if not isinstance(branch, dict) or branch.get("type") != "object":
        return None
    kind = branch.get("properties", {}).get("type")
    if not isinstance(kind, dict) or "type" not in branch.get("required", ()):
        return None
    if "const" in kind:
        return [kind["const"]]
    enum = kind.get("enum")
    return list(enum) if isinstance(enum, list) and enum else None


_NO_CONST = object()
_CONST_KEYS = {"const", "title", "description"}
_NULL = {"type": "null"}


def _as_enum(branches: list[Any]) -> list[Any] | None:
    """The values of a ``oneOf`` of titled ``const``s (how the spec spells enumerations), if distinct."""
    if not all(isinstance(b, dict) and "const" in b and set(b) <= _CONST_KEYS for b in branches):
        return None
    values = [b["const"] for b in branches]
    return values if len(set(map(repr, values))) == len(values) else None


def _as_dispatch(document: dict[str, Any], branches: list[Any]) -> dict[str, Any] | None:
    """A dispatch on ``type`` for union branches told apart by disjoint required ``type`` values."""
    typed = [b for b in branches if b != _NULL]
    accepted = [_discriminator(document, b) for b in typed]
    if len(typed) < 2 or any(a is None for a in accepted):
        return None
    table: dict[str, Any] = {}
    values: list[Any] = []
    for branch, these in zip(typed, accepted, strict=True):
        for value in these or ():
            if repr(value) in table:
                return None  # two branches take one value: not a plain dispatch
            table[repr(value)] = branch
            values.append(value)
    return {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"enum": values}},
        UNION_KEYWORD: table,
    }


def dispatch_unions(document: dict[str, Any]) -> int:
    """Rewrite each union (``oneOf``, or ``anyOf`` as the spec spells some) of object branches told
    apart by a required ``type`` (message components, command options, interaction callbacks) into a
    dispatch on that value, and each ``oneOf`` of titled ``const``s (the spec's enumerations) into an
    ``enum``.

    Equivalent: the values are disjoint and required, so no two branches can both hold, and the union
    holds exactly when the branch for the instance's ``type`` does; the ``x-standin-union`` keyword
    (``_union``) validates just that branch. Faster (one branch validated, not each of them), and an error names the real fault
    (``/components/0/components/0/label``), not every other branch's ``type``. A ``{"type": "null"}``
    branch beside them stays. Returns how many unions were rewritten."""
    rewritten = 0

    def visit(node: Any) -> None:
        nonlocal rewritten
        if isinstance(node, list):
            for item in node:
                visit(item)
            return
        if not isinstance(node, dict):
            return
        for value in node.values():
            visit(value)
        for keyword in ("oneOf", "anyOf"):
            branches = node.get(keyword)
            if not isinstance(branches, list):
                continue
            enum = _as_enum(branches) if keyword == "oneOf" else None
            if enum is not None:
                del node[keyword]
                node["enum"] = enum
                rewritten += 1
                continue
            dispatch = _as_dispatch(document, branches)
            if dispatch is None:
                continue
            if _NULL in branches:
                node[keyword] = [_NULL, dispatch]
            else:
                del node[keyword]
                node.setdefault("allOf", []).append(dispatch)
            rewritten += 1

    visit(document["components"]["schemas"])
    visit(document["paths"])
    return rewritten
