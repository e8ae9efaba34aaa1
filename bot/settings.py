"""Process-wide settings from the environment and `.env`; a bad one is one SettingsError line with its fix."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, NamedTuple
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bot.sources import SOURCE_NAMES
from db.engine import normalise_database_url
from db.models.core import DEFAULT_GRACE_DAYS

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

_HOW_TO_FIX: dict[str, str] = {
    "DISCORD_TOKEN": "copy the bot token from the Discord developer portal (Bot → Reset Token) into .env",
    "DATABASE_URL": "use sqlite+aiosqlite:///path/to/paperclub.db or postgresql://user:pass@host/db",
    "DEV_GUILD_ID": "use the numeric id of your test server (Developer Mode → right-click the server → Copy ID)",
    "LOG_LEVEL": "use one of DEBUG, INFO, WARNING, ERROR",
    "DISCORD_API_BASE": (
        "use the server's root or its API base, such as http://127.0.0.1:8123 or https://host/api/v10, "
        "or leave it unset for Discord"
    ),
    "PAPER_SOURCES": (
        "use a comma-separated list of arxiv, semantic_scholar, huggingface, openreview, crossref, datacite "
        "(or none), or leave it unset for all of them"
    ),
    "SEMANTIC_SCHOLAR_API_KEY": "paste the key Semantic Scholar sent you, or leave it unset for the shared pool",
    "CROSSREF_MAILTO": "use an e-mail address someone reads, such as club@example.org, or leave it unset",
    "WEB_PORT": "use a port number such as 8080 (0: any free port), or leave it unset to serve nothing",
    "WEB_HOST": "use the address to listen on, such as 127.0.0.1 (the default) or 0.0.0.0",
    "PUBLIC_URL": "use the https address people reach the web server at, such as https://club.example.org",
    "SHARD_COUNT": "use the total number of shards of the whole deployment, such as 4, or auto (Discord's "
    "recommendation), or leave it unset for one unsharded connection",
    "SHARD_IDS": "use the shards this process runs, such as 0-3 or 4,5,6,7, each below SHARD_COUNT and none "
    "twice, or leave it unset for all of them",
    "DATABASE_POOL_SIZE": "use the number of PostgreSQL connections each process keeps open, such as 10",
    "DATABASE_MAX_OVERFLOW": "use how many more connections a process may open at a peak, such as 20",
    "GUILD_DATA_GRACE_DAYS": "use a number of days from 0 to 365, such as 30 (the default)",
}


class SettingsError(Exception):
    """A setting is missing or invalid; the message is one line naming it and the fix."""


# discord.py 2.7 speaks version 10 of Discord's API (discord.http.INTERNAL_API_VERSION).
API_VERSION = 10
_VERSIONED = re.compile(r"(?P<root>.*)/api/v(?P<version>[0-9]+)")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


class ApiAddresses(NamedTuple):
    """Where DISCORD_API_BASE sends things."""

    rest: str  # discord.py's Route.BASE, e.g. http://h/api/v10
    gateway: str  # ws(s)://h/gateway/, used when GET /gateway is not answered


def api_addresses(base: str) -> ApiAddresses:
    """A DISCORD_API_BASE's REST base (``…/api/v10`` unless given) and gateway; ValueError if unusable."""
    parts = urlsplit(base.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError("must be an http(s) URL")
    if parts.query or parts.fragment:
        raise ValueError("must have no query or fragment")
    path = parts.path.rstrip("/")
    versioned = _VERSIONED.fullmatch(path)
    if versioned:
        root, version = versioned["root"], int(versioned["version"])
    else:
        root, version = path.removesuffix("/api") if path.endswith("/api") else path, API_VERSION
    if "api" in root.split("/"):
        raise ValueError("must be the server's root, or end in /api or /api/vN")
    ws = "wss" if parts.scheme == "https" else "ws"
    return ApiAddresses(
        rest=f"{parts.scheme}://{parts.netloc}{root}/api/v{version}",
        gateway=f"{ws}://{parts.netloc}{root}/gateway/",
    )


def parse_shard_ids(text: str) -> tuple[int, ...]:
    """``0-3``, ``4,5,6,7`` or a mix (``0-1,6``) as the shard ids in the order given; ValueError otherwise."""
    ids: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        low, dash, high = part.partition("-")
        if not low.strip().isdigit() or (dash and not high.strip().isdigit()):
            raise ValueError(f"{part!r} is not a shard id or a range like 0-3")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"the range {part!r} runs backwards")
        ids.extend(range(first, last + 1))
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"shard {duplicates[0]} is listed twice")
    return tuple(ids)


class Settings(BaseSettings):
    """The bot's settings, from the environment and ``.env``."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(default=None, description="Bot token (secret).")
    database_url: str = Field(default="sqlite+aiosqlite:///paperclub.db")
    dev_guild_id: int | None = Field(default=None, gt=0)
    log_level: LogLevel = "INFO"
    discord_api_base: str | None = None
    arxiv_api_url: str = "https://export.arxiv.org/api/query"
    # Where paper metadata comes from (bot/sources): which sources are asked, and each one's API root.
    paper_sources: Annotated[tuple[str, ...], NoDecode] = SOURCE_NAMES
    semantic_scholar_api_url: str = "https://api.semanticscholar.org/graph/v1"
    semantic_scholar_api_key: SecretStr | None = Field(
        default=None, description="Semantic Scholar key (secret)."
    )
    huggingface_api_url: str = "https://huggingface.co"
    openreview_api_url: str = "https://api2.openreview.net"
    openreview_v1_api_url: str = "https://api.openreview.net"  # venues before 2024
    crossref_api_url: str = "https://api.crossref.org"
    crossref_mailto: str | None = None
    datacite_api_url: str = "https://api.datacite.org"
    reminder_grace_minutes: int = Field(default=60, ge=0, le=24 * 60)
    max_pending_reminders: int = Field(default=500, ge=1, le=100_000)
    presenter_dm_days: int = Field(default=3, ge=0, le=30)
    suggestions_per_day: int = Field(default=5, ge=1, le=1000)
    # Days a server's data is kept after the bot is removed from it (bot/services/privacy/servers.py).
    guild_data_grace_days: int = Field(default=DEFAULT_GRACE_DAYS, ge=0, le=365)
    web_port: int | None = Field(default=None, ge=0, le=65535)
    web_host: str = Field(default="127.0.0.1", min_length=1)
    public_url: str | None = None
    # Sharding (bot/client.py ShardedPaperclubBot): the deployment's total, and this process's share of it.
    shard_count: int | Literal["auto"] | None = Field(default=None)
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = None
    # PostgreSQL connections per process (ignored for SQLite): kept open, and extra at a peak.
    database_pool_size: int = Field(default=10, ge=1, le=200)
    database_max_overflow: int = Field(default=20, ge=0, le=200)

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator(
        "dev_guild_id",
        "discord_api_base",
        "web_port",
        "public_url",
        "semantic_scholar_api_key",
        "crossref_mailto",
        mode="before",
    )
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("paper_sources", mode="before")
    @classmethod
    def _check_paper_sources(cls, value: Any) -> Any:
        if isinstance(value, str):
            if not value.strip():
                return SOURCE_NAMES
            value = () if value.strip().lower() == "none" else value.split(",")
        names = [str(name).strip().lower() for name in value]
        if any(name not in SOURCE_NAMES for name in names):
            raise ValueError("names a source the bot does not know")
        if len(set(names)) != len(names):
            raise ValueError("a source is listed twice")
        return tuple(names)

    @field_validator("crossref_mailto")
    @classmethod
    def _check_mailto(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        local, at, domain = value.partition("@")
        if not at or not local or "." not in domain or any(c.isspace() or c in "<>,;" for c in value):
            raise ValueError("must be one e-mail address")
        return value

    @field_validator("shard_count", mode="before")
    @classmethod
    def _check_shard_count(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().lower()
            if not value:
                return None
            if value != "auto":
                if not value.isdigit():
                    raise ValueError("must be a whole number or auto")
                value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value < 1:
            raise ValueError("must be at least 1")
        return value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _check_shard_ids(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str):
            if not value.strip():
                return None
            value = parse_shard_ids(value)
        if value is None:
            return None
        ids = tuple(int(i) for i in value)
        if len(set(ids)) != len(ids):
            raise ValueError("a shard is listed twice")
        count = info.data.get("shard_count")
        if count is None or count == "auto":
            # discord.py's AutoShardedClient needs the total to run only some shards.
            raise ValueError("needs SHARD_COUNT set to the deployment's total number of shards")
        if not ids:
            raise ValueError("lists no shard")
        outside = [i for i in ids if i >= count]
        if outside:
            raise ValueError(f"shard {outside[0]} is not below SHARD_COUNT ({count}); ids run from 0")
        return ids

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        return normalise_database_url(value)  # postgresql:// and postgres:// become postgresql+asyncpg://

    @field_validator(
        "discord_api_base",
        "arxiv_api_url",
        "public_url",
        "semantic_scholar_api_url",
        "huggingface_api_url",
        "openreview_api_url",
        "openreview_v1_api_url",
        "crossref_api_url",
        "datacite_api_url",
    )
    @classmethod
    def _check_http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("must be an http(s) URL")
        return value.rstrip("/")

    @field_validator("discord_api_base")
    @classmethod
    def _check_api_base(cls, value: str | None) -> str | None:
        """A root or /api[/vN] base; the token goes there, so plain http only to this machine."""
        if value is None:
            return None
        api_addresses(value)
        parts = urlsplit(value)
        if parts.scheme == "http" and (parts.hostname or "") not in LOOPBACK_HOSTS:
            raise ValueError("must use https unless it is on this machine (127.0.0.1 or localhost)")
        return value

    def source_enabled(self, name: str) -> bool:
        """True when PAPER_SOURCES lets the bot ask ``name`` (one of bot.sources.SOURCE_NAMES)."""
        return name in self.paper_sources

    @property
    def sharded(self) -> bool:
        """True when SHARD_COUNT is set: the bot runs discord.py's AutoShardedBot."""
        return self.shard_count is not None

    def require_token(self) -> str:
        """The token, or a SettingsError when it is missing (only `run` and `sync-commands` need it)."""
        if self.discord_token is None or not self.discord_token.get_secret_value().strip():
            raise SettingsError(f"DISCORD_TOKEN is not set: {_HOW_TO_FIX['DISCORD_TOKEN']}.")
        return self.discord_token.get_secret_value().strip()


_HOW_TO_FIX.update(
    (name.upper(), f"use an http(s) URL such as {field.default}")
    for name, field in Settings.model_fields.items()
    if name.endswith("_api_url")
)


def load_settings(**overrides: Any) -> Settings:
    """Read settings; a bad value raises SettingsError with one line (never the value of a secret)."""
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]).upper() if error["loc"] else "SETTINGS"
        reason = str(error["msg"]).removeprefix("Value error, ")
        fix = _HOW_TO_FIX.get(field, "see .env.example")
        raise SettingsError(f"{field} is invalid ({reason}): {fix}.") from None
