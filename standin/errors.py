"""Discord's error answers: ``ApiError`` (status + JSON body) and ``FormErrors``, the nested ``errors``
tree of ``400 {"code": 50035, "message": "Invalid Form Body", "errors": {...}}``
(``{"embeds": {"0": {"title": {"_errors": [...]}}}}``), which discord.py flattens into
``"In embeds.0.title: Must be 256 or fewer in length."``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from standin.state import Json


class ApiError(Exception):
    """An error answer: HTTP status plus Discord's JSON body."""

    def __init__(self, status: int, code: int, message: str, errors: Json | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: Json = {"message": message, "code": code}
        if errors is not None:
            self.body["errors"] = errors


def not_found(what: str, code: int) -> ApiError:
    """A 404 API error for an unknown ``what``."""
    return ApiError(404, code, f"Unknown {what}")


def missing_access() -> ApiError:
    """The 403 Missing Access API error (JSON error code 50001): a channel the bot cannot view."""
    return ApiError(403, 50001, "Missing Access")


def missing_permissions() -> ApiError:
    """The 403 Missing Permissions API error."""
    return ApiError(403, 50013, "Missing Permissions")


class FormErrors:
    """Collects field errors into Discord's nested ``errors`` object."""

    def __init__(self) -> None:
        self.tree: Json = {}

    def __bool__(self) -> bool:
        return bool(self.tree)

    def add(self, path: Sequence[str | int], code: str, message: str) -> None:
        """Add an error at ``path`` in the nested error tree."""
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def length(
        self, path: Sequence[str | int], value: Any, high: int, low: int = 0, required: bool = False
    ) -> None:
        """Add an error when ``value`` is missing (if required) or outside ``low``..``high`` in length."""
        if value is None:
            if required:
                self.add(path, "BASE_TYPE_REQUIRED", "This field is required")
            return
        size = len(value) if isinstance(value, (str, list)) else len(str(value))
        if low and size < low:
            self.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")
        elif size > high:
            if low:
                self.add(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")
            else:
                self.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")

    def raise_if_any(self) -> None:
        """Raise Invalid Form Body with the collected errors, if there are any."""
        if self.tree:
            raise ApiError(400, 50035, "Invalid Form Body", self.tree)
