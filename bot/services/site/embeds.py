"""Recordings embedded on a session page: YouTube, Vimeo and Loom only, recognised by the parsed URL."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qs, urlsplit

_YOUTUBE_ID: Final = re.compile(r"[A-Za-z0-9_-]{11}")
_VIMEO_ID: Final = re.compile(r"[0-9]{1,12}")
_VIMEO_HASH: Final = re.compile(r"[0-9a-f]{6,20}")
_LOOM_ID: Final = re.compile(r"[0-9a-f]{32}")
YOUTUBE_HOSTS: Final = frozenset(
    {"youtube.com", "www.youtube.com", "m.youtube.com", "youtube-nocookie.com", "www.youtube-nocookie.com"}
)
VIMEO_HOSTS: Final = frozenset({"vimeo.com", "www.vimeo.com", "player.vimeo.com"})
LOOM_HOSTS: Final = frozenset({"loom.com", "www.loom.com"})
#: The frame sources the pages' Content-Security-Policy allows (exactly where embeds point).
FRAME_SOURCES: Final = (
    "https://www.youtube-nocookie.com",
    "https://player.vimeo.com",
    "https://www.loom.com",
)


@dataclass(frozen=True)
class Embed:
    """A recording's player the session page may embed."""

    provider: str  # "YouTube", "Vimeo" or "Loom"
    src: str  # the player's address, built from the parsed id only


def _youtube(host: str, parts: list[str], query: str) -> str | None:
    video: str | None = None
    if host == "youtu.be":
        video = parts[0] if len(parts) == 1 else None
    elif host in YOUTUBE_HOSTS:
        if parts == ["watch"]:
            values = parse_qs(query).get("v", [])
            video = values[0] if len(values) == 1 else None
        elif len(parts) == 2 and parts[0] in ("embed", "shorts", "live", "v"):
            video = parts[1]
    if video is None or not _YOUTUBE_ID.fullmatch(video):
        return None
    return f"https://www.youtube-nocookie.com/embed/{video}"


def _vimeo(host: str, parts: list[str], query: str) -> str | None:
    if host == "player.vimeo.com":
        parts = parts[1:] if parts[:1] == ["video"] else []
    if not parts or len(parts) > 2 or not _VIMEO_ID.fullmatch(parts[0]):
        return None
    src = f"https://player.vimeo.com/video/{parts[0]}"
    hashes = parse_qs(query).get("h", [])
    secret = parts[1] if len(parts) == 2 else (hashes[0] if len(hashes) == 1 else None)
    if secret is not None:
        if not _VIMEO_HASH.fullmatch(secret):
            return None
        src += f"?h={secret}"
    return src


def _loom(host: str, parts: list[str], query: str) -> str | None:
    if len(parts) != 2 or parts[0] not in ("share", "embed") or not _LOOM_ID.fullmatch(parts[1]):
        return None
    return f"https://www.loom.com/embed/{parts[1]}"


def recording_embed(url: str | None) -> Embed | None:
    """The player to embed for a recording link, or None (then the page shows a plain link)."""
    if not url:
        return None
    try:
        address = urlsplit(url.strip())
        port = address.port
    except ValueError:
        return None
    if address.scheme not in ("http", "https") or port not in (None, 80, 443):
        return None
    if address.username is not None or address.password is not None:
        return None
    host = (address.hostname or "").lower()
    for provider, hosts, parse in (
        ("YouTube", YOUTUBE_HOSTS | {"youtu.be"}, _youtube),
        ("Vimeo", VIMEO_HOSTS, _vimeo),
        ("Loom", LOOM_HOSTS, _loom),
    ):
        if host in hosts:
            src = parse(host, [p for p in address.path.split("/") if p], address.query)
            return Embed(provider, src) if src else None
    return None
