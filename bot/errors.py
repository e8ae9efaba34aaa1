"""Domain errors, each with the short message the user sees; any other exception is a bug (logged)."""

from __future__ import annotations


class PaperclubError(Exception):
    """An error whose ``user_message`` is safe and useful to show to the user."""

    def __init__(self, user_message: str) -> None:
        super().__init__(user_message)
        self.user_message = user_message


class BadInput(PaperclubError):
    """The user gave a value we cannot use (unparseable time, bad URL, too long...)."""


class NotFound(PaperclubError):
    """The thing asked for does not exist in this guild."""


class NotAllowed(PaperclubError):
    """The user may not do this (not an organizer, not the submitter...)."""


class Conflict(PaperclubError):
    """The request clashes with what is stored (a duplicate, a cap reached...)."""


class NotConfigured(PaperclubError):
    """The guild has not set something up yet (e.g. no announcements channel)."""
