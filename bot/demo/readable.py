"""Messages as a member's client shows them: time markup in the reader's zone (UTC), buttons with emoji."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from bot.timeutil import format_long_date
from standin.interactions import Response
from standin.state import Message

READER_ZONE = "UTC"
TIMESTAMP = re.compile(r"<t:(-?\d+)(?::([tTdDfFR]))?>")


def _clock(moment: datetime, *, seconds: bool = False) -> str:
    hour = moment.hour % 12 or 12
    tail = f":{moment:%S}" if seconds else ""
    return f"{hour}:{moment:%M}{tail} {'AM' if moment.hour < 12 else 'PM'}"


_UNITS = (  # moment.js's thresholds, which Discord's relative times follow
    ("second", 1, 45),
    ("minute", 60, 45 * 60),
    ("hour", 3600, 22 * 3600),
    ("day", 86400, 26 * 86400),
    ("month", 30 * 86400, 320 * 86400),
    ("year", 365 * 86400, float("inf")),
)


def relative(moment: datetime, now: datetime) -> str:
    """'in 3 days', 'an hour ago': what Discord's ``R`` style shows at ``now``."""
    seconds = (moment - now).total_seconds()
    unit, length = next((unit, length) for unit, length, limit in _UNITS if abs(seconds) < limit)
    count = round(abs(seconds) / length)
    if unit == "second":
        amount = "a few seconds"
    elif count <= 1:
        amount = f"{'an' if unit == 'hour' else 'a'} {unit}"
    else:
        amount = f"{count} {unit}s"
    return f"in {amount}" if seconds >= 0 else f"{amount} ago"


def timestamp_text(seconds: int, style: str | None, now: datetime) -> str:
    """One ``<t:seconds:style>`` as the demo's reader sees it."""
    moment = datetime.fromtimestamp(seconds, UTC)
    if style == "R":
        return relative(moment, now)
    clock = f"{_clock(moment, seconds=style == 'T')} {READER_ZONE}"
    if style in ("t", "T"):
        return clock
    if style in ("d", "D"):
        return format_long_date(moment, weekday=False)
    return f"{format_long_date(moment, weekday=style == 'F')}, {clock}"  # F, or f (the default)


def _walk(value: Any, now: datetime) -> Any:
    if isinstance(value, str):
        return TIMESTAMP.sub(lambda m: timestamp_text(int(m.group(1)), m.group(2), now), value)
    if isinstance(value, list):
        return [_walk(item, now) for item in value]
    if isinstance(value, dict):
        out = {key: _walk(item, now) for key, item in value.items()}
        if value.get("type") == 2 and ("custom_id" in value or "url" in value):
            # a button as a member sees it: its emoji before its label; no colour (but a link's ↗)
            emoji = (out.get("emoji") or {}).get("name")
            if emoji and out.get("label"):
                out["label"] = f"{emoji} {out['label']}"
                out.pop("emoji")
            if out.get("style") in (3, 4):  # success, danger: drawn like the others
                out["style"] = 2
        stamp = value.get("timestamp")
        if isinstance(stamp, str) and ("title" in value or "description" in value or "footer" in value):
            # an embed: Discord shows its timestamp beside the footer, in the reader's zone
            out["timestamp"] = timestamp_text(int(datetime.fromisoformat(stamp).timestamp()), "f", now)
        return out
    return value


def message(msg: Message, now: datetime) -> Message:
    """A copy of ``msg`` whose times read as the demo's reader sees them."""
    return replace(msg, payload=_walk(msg.payload, now))


def response(answer: Response, now: datetime) -> Response:
    """A copy of ``answer`` whose times read as the demo's reader sees them."""
    return replace(
        answer,
        data=_walk(answer.data, now),
        message=message(answer.message, now) if answer.message is not None else None,
    )
