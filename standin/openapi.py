"""Every REST request checked against Discord's OpenAPI description (``standin/spec/openapi.json``).

``load_spec()`` reads the vendored description once per process, applies the reasoned patches of
:mod:`standin.spec_quirks` and builds the path matcher; ``ApiSpec.check`` matches a request to its
operation by method and path template and validates its path parameters, query parameters and JSON body
(for multipart requests, the ``payload_json`` part) with ``jsonschema``. ``$ref``s resolve inside the spec
through a ``referencing`` registry. Validators are built on an operation's first request and kept.

A violation names the operation (``operationId``) and a JSON pointer into the request seen as one
document, ``{"path": {...}, "query": {...}, "body": ...}``: ``/body/embeds/0/title``, ``/query/limit``,
``/path/channel_id``. The stand-in answers it like Discord's ``50035 Invalid Form Body`` and records it;
the test harness fails the test that caused it (see ``StandIn.check_violations``).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import unquote

import jsonschema
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from standin import spec_quirks

SPEC_URI = "urn:discord-api-spec:openapi.json"
METHODS = ("get", "put", "post", "patch", "delete")
NO_OPERATION = "(no operation)"
UNION_KEYWORD = "x-standin-union"  # see _dispatch_unions
_MESSAGE_MAX = 300


class SpecViolationError(AssertionError):
    """Raised at teardown when the stand-in answered a request that Discord's API description refuses."""

    def __init__(self, violations: Iterable[Violation]) -> None:
        self.violations = list(violations)
        lines = "\n".join(f"  - {v}" for v in self.violations)
        super().__init__(
            f"{len(self.violations)} request(s) broke Discord's OpenAPI description "
            f"(standin/spec/openapi.json; known gaps in standin/spec_quirks.py):\n{lines}"
        )


@dataclass(frozen=True)
class Violation:
    operation_id: str
    method: str
    path: str  # as requested, without the /api/vN prefix
    pointer: str  # into {"path": ..., "query": ..., "body": ...}
    message: str

    def __str__(self) -> str:
        return f"{self.operation_id} {self.pointer or '/'}: {self.message}  [{self.method} {self.path}]"


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


# -- the validator: Draft 2020-12 (OpenAPI 3.1's dialect) plus the union dispatch of _dispatch_unions ----
def _union(validator: Any, branches: dict[str, Any], instance: Any, schema: Any) -> Iterator[ValidationError]:
    """Validate an object against the one branch its ``type`` selects (a missing or unknown ``type`` is
    reported by the ``required`` and ``enum`` beside this keyword)."""
    if isinstance(instance, dict) and "type" in instance:
        branch = branches.get(repr(instance["type"]))
        if branch is not None:
            yield from validator.descend(instance, branch)


SpecValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {UNION_KEYWORD: _union})


# -- operations ------------------------------------------------------------------------------------------
def _escape(part: object) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def pointer(*parts: object) -> str:
    return "".join("/" + _escape(p) for p in parts)


@dataclass
class Parameter:
    name: str
    location: str  # "path" or "query"
    required: bool
    kind: str  # the JSON type a query string is read as: array, integer, number, boolean or string
    validator: Validator


@dataclass
class Operation:
    operation_id: str
    method: str
    template: str
    path_names: list[str]
    spec_pointer: str  # JSON pointer to the operation object in the spec
    _compiled: bool = False
    parameters: list[Parameter] = field(default_factory=list)
    body: Validator | None = None
    body_required: bool = False


class _Node:
    __slots__ = ("literals", "param", "operations")

    def __init__(self) -> None:
        self.literals: dict[str, _Node] = {}
        self.param: _Node | None = None
        self.operations: dict[str, Operation] = {}


class ApiSpec:
    """The loaded (and patched) description: a path matcher and per-operation validators."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.registry: Registry[Any] = Registry().with_resource(
            SPEC_URI, DRAFT202012.create_resource(document)
        )
        self._root = _Node()
        self.operations: dict[str, Operation] = {}
        for template, item in document["paths"].items():
            for method in METHODS:
                if method in item:
                    self._add(template, method, item[method])

    def _add(self, template: str, method: str, op: dict[str, Any]) -> None:
        node = self._root
        names: list[str] = []
        for segment in template.strip("/").split("/"):
            if segment.startswith("{") and segment.endswith("}"):
                names.append(segment[1:-1])
                node.param = node.param or _Node()
                node = node.param
            else:
                node = node.literals.setdefault(segment, _Node())
        operation = Operation(
            op["operationId"], method.upper(), template, names, pointer("paths", template, method)
        )
        node.operations[operation.method] = operation
        self.operations[operation.operation_id] = operation

    # -- matching ----------------------------------------------------------------------------------------
    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation for ``method`` and a path without the ``/api/vN`` prefix (segments percent-encoded
        or not); literal segments win over parameters (``/users/@me`` before ``/users/{user_id}``)."""
        segments = [unquote(s) for s in path.strip("/").split("/")]
        found = self._walk(self._root, segments, 0, method.upper(), [])
        if found is None:
            return None
        operation, values = found
        return operation, dict(zip(operation.path_names, values, strict=True))

    def _walk(
        self, node: _Node, segments: list[str], i: int, method: str, values: list[str]
    ) -> tuple[Operation, list[str]] | None:
        if i == len(segments):
            operation = node.operations.get(method)
            return (operation, values) if operation is not None else None
        literal = node.literals.get(segments[i])
        if literal is not None:
            found = self._walk(literal, segments, i + 1, method, values)
            if found is not None:
                return found
        if node.param is not None and segments[i]:
            return self._walk(node.param, segments, i + 1, method, [*values, segments[i]])
        return None

    # -- validators --------------------------------------------------------------------------------------
    def validator(self, spec_pointer: str) -> Validator:
        return SpecValidator(
            {"$ref": f"{SPEC_URI}#{spec_pointer}"}, registry=self.registry, format_checker=FORMATS
        )

    def resolve(self, spec_pointer: str) -> Any:
        node: Any = self.document
        for part in spec_pointer.lstrip("/").split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node

    def _schema_kind(self, schema: dict[str, Any]) -> str:
        while "$ref" in schema:
            schema = self.resolve(schema["$ref"].split("#", 1)[1])
        types = schema.get("type")
        types = [types] if isinstance(types, str) else list(types or [])
        types = [t for t in types if t != "null"]
        return types[0] if len(types) == 1 else "string"

    def _compile(self, operation: Operation) -> None:
        item_pointer = pointer("paths", operation.template)
        op = self.resolve(operation.spec_pointer)
        declared: dict[tuple[str, str], str] = {}
        for where, params in ((item_pointer, self.resolve(item_pointer).get("parameters", [])),):
            for i, prm in enumerate(params):
                declared[(prm["in"], prm["name"])] = f"{where}/parameters/{i}"
        for i, prm in enumerate(op.get("parameters", [])):  # operation-level ones override the path's
            declared[(prm["in"], prm["name"])] = f"{operation.spec_pointer}/parameters/{i}"
        for (location, name), prm_pointer in declared.items():
            if location not in ("path", "query"):
                continue
            prm = self.resolve(prm_pointer)
            operation.parameters.append(
                Parameter(
                    name,
                    location,
                    location == "path" or bool(prm.get("required")),
                    self._schema_kind(prm["schema"]),
                    self.validator(prm_pointer + "/schema"),
                )
            )
        body = op.get("requestBody")
        if body is not None:
            content = body.get("content", {})
            media = "application/json" if "application/json" in content else next(iter(content), None)
            if media is not None:
                operation.body = self.validator(
                    f"{operation.spec_pointer}/requestBody/content/{_escape(media)}/schema"
                )
            operation.body_required = bool(body.get("required"))
        operation._compiled = True

    # -- checking ----------------------------------------------------------------------------------------
    def check(
        self, method: str, path: str, query: Mapping[str, Any], body: Any, *, has_body: bool
    ) -> tuple[Operation | None, list[Violation]]:
        """Violations of one request. ``query`` maps names to values (a MultiDict gives repeated keys to
        array parameters); ``body`` is the parsed JSON (or ``payload_json``), ``has_body`` whether one came."""
        found = self.match(method, path)
        if found is None:
            message = f"Discord's API description has no operation for {method.upper()} {path}"
            return None, [Violation(NO_OPERATION, method.upper(), path, "", message)]
        operation, path_values = found
        if not operation._compiled:
            self._compile(operation)
        violations: list[Violation] = []

        def report(error: ValidationError | None, base: tuple[object, ...], text: str = "") -> None:
            parts = (*base, *error.absolute_path) if error is not None else base
            message = text or _describe(error)
            violations.append(
                Violation(operation.operation_id, method.upper(), path, pointer(*parts), message)
            )

        for param in operation.parameters:
            if param.location == "path":
                value: Any = path_values.get(param.name)
            else:
                value = _query_value(query, param)
            if value is None:
                if param.required:
                    report(None, (param.location, param.name), "required parameter is missing")
                continue
            error = best_match(param.validator.iter_errors(value))
            if error is not None:
                report(error, (param.location, param.name))
        if operation.body is not None and has_body:
            for error in _errors(operation.body, body):
                report(error, ("body",))
        elif operation.body is not None and operation.body_required:
            report(None, ("body",), "a request body is required")
        return operation, violations


def _errors(validator: Validator, instance: Any) -> list[ValidationError]:
    """The most telling error of each failing branch (the cheap ``is_valid`` first: most requests pass)."""
    if validator.is_valid(instance):
        return []
    errors = []
    for error in validator.iter_errors(instance):
        best = best_match([error])
        errors.append(best if best is not None else error)
    return errors


def _describe(error: ValidationError | None) -> str:
    """jsonschema's message with the offending value's repr cut short (a 5,000-character content would
    otherwise hide the reason), then the whole cut to a readable length."""
    if error is None:
        return "invalid"
    text = error.message
    shown = repr(error.instance)
    if len(shown) > 60 and shown in text:
        size = f" ({len(error.instance)} long)" if isinstance(error.instance, (str, list, dict)) else ""
        text = text.replace(shown, shown[:40] + "…" + shown[-1] + size, 1)
    return text if len(text) <= _MESSAGE_MAX else text[: _MESSAGE_MAX - 1] + "…"


_TRUE, _FALSE = {"true", "True", "1"}, {"false", "False", "0"}


def _coerce(raw: str, kind: str) -> Any:
    """A query string read as the JSON type the parameter's schema wants (left a string when it isn't one,
    so the schema reports it)."""
    if kind == "integer" and re.fullmatch(r"-?\d+", raw):
        return int(raw)
    if kind == "number":
        try:
            return float(raw)
        except ValueError:
            return raw
    if kind == "boolean":
        return True if raw in _TRUE else False if raw in _FALSE else raw
    return raw


def _query_value(query: Mapping[str, Any], param: Parameter) -> Any:
    if param.name not in query:
        return None
    getall = getattr(query, "getall", None)
    raw = getall(param.name) if getall is not None else [query[param.name]]
    if param.kind == "array":
        return [str(v) for v in raw]
    return _coerce(str(raw[0]), param.kind)


def error_tree(violations: Iterable[Violation]) -> dict[str, Any]:
    """Discord's nested ``errors`` object (``{"embeds": {"0": {"title": {"_errors": [...]}}}}``), each
    message naming the operation and pointer so discord.py's ``HTTPException`` text carries them."""
    tree: dict[str, Any] = {}
    for v in violations:
        node = tree
        parts = [p.replace("~1", "/").replace("~0", "~") for p in v.pointer.split("/")[2:]]
        for part in parts:
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append(
            {"code": "OPENAPI_SCHEMA", "message": f"{v.message} ({v.operation_id} {v.pointer or '/'})"}
        )
    return tree


def error_body(violations: list[Violation]) -> dict[str, Any]:
    if all(v.operation_id == NO_OPERATION for v in violations):
        return {"message": "404: Not Found", "code": 0}
    return {"message": "Invalid Form Body", "code": 50035, "errors": error_tree(violations)}


# -- discriminated unions ----------------------------------------------------------------------------------
def _discriminator(document: dict[str, Any], branch: Any) -> Any:
    """The one ``type`` value a union branch requires (``properties.type`` an ``enum`` of one value or a
    ``const``, ``type`` required), or None when the branch is not of that form."""
    seen = 0
    while isinstance(branch, dict) and "$ref" in branch and seen < 8:
        ref = branch["$ref"]
        if not ref.startswith("#/components/schemas/"):
            return None
        branch = document["components"]["schemas"].get(ref.rsplit("/", 1)[1])
        seen += 1
    if not isinstance(branch, dict) or branch.get("type") != "object":
        return None
    kind = branch.get("properties", {}).get("type")
    if not isinstance(kind, dict) or "type" not in branch.get("required", ()):
        return None
    if "const" in kind:
        return kind["const"]
    enum = kind.get("enum")
    return enum[0] if isinstance(enum, list) and len(enum) == 1 else None


_NO_CONST = object()
_CONST_KEYS = {"const", "title", "description"}


def _dispatch_unions(document: dict[str, Any]) -> int:
    """Rewrite each ``oneOf`` of object branches told apart by a required ``type`` value (components,
    embeds' parts, command options, interaction callbacks) into a dispatch on that value.

    Equivalent: the values are distinct and required, so at most one branch can hold and ``oneOf`` holds
    exactly when the branch whose value the instance carries does; the ``x-standin-union`` keyword
    (see ``_union``) validates just that branch. Faster (one branch validated, not all of them), and the
    error names the real fault (``/components/0/components/0/label``) instead of every branch's ``type``.
    A ``{"type": "null"}`` branch beside them is kept as is. Likewise a ``oneOf`` of titled ``const``s
    (the spec's enumerations) becomes an ``enum``. Returns how many unions were rewritten."""
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
        branches = node.get("oneOf")
        if not isinstance(branches, list):
            return
        consts = [b.get("const", _NO_CONST) for b in branches if isinstance(b, dict)]
        if (
            len(consts) == len(branches)
            and _NO_CONST not in consts
            and all(set(b) <= _CONST_KEYS for b in branches)
            and len(set(map(repr, consts))) == len(consts)
        ):
            # An enumeration spelt as a oneOf of titled consts (ChannelTypes, MessageComponentTypes...):
            # distinct values, so exactly one matches iff the value is among them.
            del node["oneOf"]
            node["enum"] = consts
            rewritten += 1
            return
        typed = [b for b in branches if b != {"type": "null"}]
        values = [_discriminator(document, b) for b in typed]
        if len(typed) < 2 or any(v is None for v in values) or len(set(map(repr, values))) != len(values):
            return
        dispatch: dict[str, Any] = {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"enum": values}},
            UNION_KEYWORD: {repr(v): b for v, b in zip(values, typed, strict=True)},
        }
        if len(typed) == len(branches):
            del node["oneOf"]
            node.setdefault("allOf", []).append(dispatch)
        else:
            node["oneOf"] = [{"type": "null"}, dispatch]
        rewritten += 1

    visit(document["components"]["schemas"])
    visit(document["paths"])
    return rewritten


@functools.cache
def load_spec() -> ApiSpec:
    """The vendored description with its quirks patched in; read once per process."""
    raw = resources.files("standin").joinpath("spec/openapi.json").read_text(encoding="utf-8")
    document = json.loads(raw)
    spec_quirks.apply_all(document)
    _dispatch_unions(document)
    return ApiSpec(document)
