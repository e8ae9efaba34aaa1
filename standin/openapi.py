"""Every REST request checked against Discord's OpenAPI description (``standin/spec/openapi.json``).

``load_spec()`` reads the description once per process with the patches of :mod:`standin.spec_quirks`;
``ApiSpec.check`` matches a request to its operation and validates its path, query and JSON body with
``jsonschema``. A violation names the ``operationId`` and a JSON pointer into ``{"path", "query", "body"}``
(``/body/embeds/0/title``); the stand-in answers it like Discord's ``50035 Invalid Form Body`` and the test
harness fails the test that caused it (``StandIn.check_violations``).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import unquote

from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from standin import spec_quirks
from standin.spec_validator import FORMATS, SpecValidator, dispatch_unions

SPEC_URI = "urn:discord-api-spec:openapi.json"
METHODS = ("get", "put", "post", "patch", "delete")
NO_OPERATION = "(no operation)"
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
    """One way a request broke Discord's OpenAPI description."""

    operation_id: str
    method: str
    path: str  # as requested, without the /api/vN prefix
    pointer: str  # into {"path": ..., "query": ..., "body": ...}
    message: str

    def __str__(self) -> str:
        return f"{self.operation_id} {self.pointer or '/'}: {self.message}  [{self.method} {self.path}]"


# -- operations ------------------------------------------------------------------------------------------
def _escape(part: object) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def pointer(*parts: object) -> str:
    """A JSON pointer built from ``parts``, each escaped."""
    return "".join("/" + _escape(p) for p in parts)


@dataclass
class Parameter:
    """One path or query parameter of an operation, with its validator."""

    name: str
    location: str  # "path" or "query"
    required: bool
    kind: str  # the JSON type a query string is read as: array, integer, number, boolean or string
    validator: Validator


@dataclass
class Operation:
    """One operation of the spec: its method, path template and where it sits in the spec."""

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
        # Body outcomes by (operation, body as JSON text): a bot sends the same command tree at every
        # start and often the same reply; a hit costs one json.dumps instead of a validation.
        self._bodies: dict[tuple[str, str], list[tuple[tuple[object, ...], str]]] = {}
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
        """A validator for the schema at ``spec_pointer`` in the spec."""
        return SpecValidator(
            {"$ref": f"{SPEC_URI}#{spec_pointer}"}, registry=self.registry, format_checker=FORMATS
        )

    def resolve(self, spec_pointer: str) -> Any:
        """The spec node at a JSON pointer."""
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
        declared: dict[tuple[str, str], str] = {}  # (in, name) -> pointer to the parameter object
        for where, params in (
            (item_pointer, self.resolve(item_pointer).get("parameters", [])),
            (operation.spec_pointer, op.get("parameters", [])),  # the operation's override the path's
        ):
            for i, prm in enumerate(params):
                declared[(prm["in"], prm["name"])] = f"{where}/parameters/{i}"
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

    def forget_bodies(self) -> None:
        """Drop the remembered body outcomes (a benchmark measuring uncached checks)."""
        self._bodies.clear()

    def _body_errors(self, operation: Operation, body: Any) -> list[tuple[tuple[object, ...], str]]:
        """(path in the body, message) of each error, remembered for bodies seen before."""
        assert operation.body is not None
        key = _body_cache_key(operation, body)
        found = self._bodies.get(key) if key is not None else None
        if found is None:
            found = [(tuple(e.absolute_path), _describe(e)) for e in _errors(operation.body, body)]
            if key is not None:
                if len(self._bodies) >= BODY_CACHE_MAX:
                    del self._bodies[next(iter(self._bodies))]  # the oldest
                self._bodies[key] = found
        return found

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
            """One violation at ``base`` (plus the error's own path), with ``text`` or the error's."""
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
            error = next(iter(_errors(param.validator, value)), None)
            if error is not None:
                report(error, (param.location, param.name))
        if operation.body is not None and has_body:
            for parts, message in self._body_errors(operation, body):
                report(None, ("body", *parts), message)
        elif operation.body is not None and operation.body_required:
            report(None, ("body",), "a request body is required")
        return operation, violations


BODY_CACHE_MAX = 4096


def _body_cache_key(operation: Operation, body: Any) -> tuple[str, str] | None:
    try:
        return operation.operation_id, json.dumps(body, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None


def _errors(validator: Validator, instance: Any) -> list[ValidationError]:
    """The most telling error under each failure (the cheap ``is_valid`` first: most requests pass)."""
    if validator.is_valid(instance):
        return []
    return [_pinpoint(error) for error in validator.iter_errors(instance)]


def _pinpoint(error: ValidationError) -> ValidationError:
    """Down a failed union to its deepest error, one that is not a mere type mismatch where a branch
    says more (``best_match`` stops where branches tie, at "is not valid under any of the given
    schemas", which names no field)."""
    best = best_match([error]) or error
    while best.context:
        union = best
        best = max(union.context, key=lambda e: (len(e.absolute_path), e.validator != "type"))
        if best.validator == "type":  # every branch refused the value's type: say which types would do
            wanted = [
                t
                for e in union.context
                if e.validator == "type" and e.absolute_path == best.absolute_path
                for t in ([e.validator_value] if isinstance(e.validator_value, str) else e.validator_value)
            ]
            best.message = f"{best.instance!r} is not of type {', '.join(map(repr, dict.fromkeys(wanted)))}"
    return best


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
    """The error body Discord would send for these violations."""
    if all(v.operation_id == NO_OPERATION for v in violations):
        return {"message": "404: Not Found", "code": 0}
    return {"message": "Invalid Form Body", "code": 50035, "errors": error_tree(violations)}


@functools.cache
def load_spec() -> ApiSpec:
    """The vendored description with its quirks patched in; read once per process."""
    raw = resources.files("standin").joinpath("spec/openapi.json").read_text(encoding="utf-8")
    document = json.loads(raw)
    spec_quirks.apply_all(document)
    dispatch_unions(document)
    return ApiSpec(document)
