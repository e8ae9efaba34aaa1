"""Logging set-up: one format, secrets (and token-shaped text) redacted, other libraries' noise kept down."""

from __future__ import annotations

import logging
import re
from typing import Any

from pydantic import SecretStr

_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}")
REDACTED = "[redacted]"


class RedactingFilter(logging.Filter):
    """Replaces known secrets, and anything shaped like a bot token, in the formatted message."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self._secrets = [s for s in secrets if s]

    def add_secret(self, secret: str) -> None:
        """Redact ``secret`` from every log record from now on."""
        if secret and secret not in self._secrets:
            self._secrets.append(secret)

    def redact(self, text: str) -> str:
        """``text`` with the known secrets and anything shaped like a token replaced."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return _TOKEN_SHAPE.sub(REDACTED, text)

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the record's message and traceback in place; always keep the record."""
        message = record.getMessage()
        clean = self.redact(message)
        if record.exc_info and record.exc_info[1] is not None:
            # Format the traceback now, redacted, so no handler formats the raw one.
            formatter = logging.Formatter()
            record.exc_text = self.redact(formatter.formatException(record.exc_info))
            record.exc_info = None
        elif record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if clean != message or record.args:
            record.msg = clean
            record.args = None
        return True


_FILTER = RedactingFilter([])


def setting_secrets(settings: Any) -> list[str]:
    """The values of every SecretStr setting, as given and stripped, for :func:`setup_logging` to redact."""
    secrets: list[str] = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr) and (raw := value.get_secret_value()):
            secrets.extend(dict.fromkeys((raw, raw.strip())))
    return [secret for secret in secrets if secret]


# Logged by discord.Client.__init__ (discord/client.py, discord.py 2.7) when the voice extras are missing.
VOICE_WARNINGS = frozenset(
    {
        "PyNaCl is not installed, voice will NOT be supported",
        "davey is not installed, voice will NOT be supported",
    }
)
QUIET_UNLESS_DEBUG = ("alembic", "apscheduler")  # routine INFO lines
AT_MOST_INFO = ("aiosqlite", "apscheduler", "discord.http")  # at DEBUG: every statement, wake-up, request


def _no_voice_warning(record: logging.LogRecord) -> bool:
    return not (record.name == "discord.client" and record.msg in VOICE_WARNINGS)


def setup_logging(level: str = "INFO", secrets: list[str] | None = None) -> RedactingFilter:
    """Configure the root logger once; safe to call again (tests do)."""
    for secret in secrets or []:
        _FILTER.add_secret(secret)
    root = logging.getLogger()
    root.setLevel(level)
    if not any(getattr(h, "_paperclub", False) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
        handler._paperclub = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    for existing in root.handlers:
        if _FILTER not in existing.filters:
            existing.addFilter(_FILTER)
    numeric = logging.getLevelName(level)
    for name in dict.fromkeys((*QUIET_UNLESS_DEBUG, *AT_MOST_INFO)):
        floor = logging.INFO if name in AT_MOST_INFO else logging.NOTSET
        if name in QUIET_UNLESS_DEBUG and numeric > logging.DEBUG:
            floor = logging.WARNING
        logging.getLogger(name).setLevel(max(numeric, floor))
    voice = logging.getLogger("discord.client")
    if _no_voice_warning not in voice.filters:
        voice.addFilter(_no_voice_warning)
    return _FILTER
