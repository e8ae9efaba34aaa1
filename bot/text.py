"""Discord's length limits and text trimming, without importing discord (services use these)."""

from __future__ import annotations

CONTENT_LIMIT = 2000
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_FIELD_NAME_LIMIT = 256
EMBED_FIELD_VALUE_LIMIT = 1024
EMBED_FOOTER_LIMIT = 2048
EMBED_TOTAL_LIMIT = 6000
BUTTON_LABEL_LIMIT = 80
CHOICE_NAME_LIMIT = 100
THREAD_NAME_LIMIT = 100


def cut(text: str | None, limit: int) -> str:
    """Cut text to `limit` characters with an ellipsis (for display only; stored text stays whole)."""
    if text is None:
        return ""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def one_line(text: str, limit: int = 100) -> str:
    return cut(" ".join(text.split()), limit)
