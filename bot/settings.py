"""Process-wide settings, read from the environment and `.env` (pydantic-settings).

Every setting is documented in `.env.example` and the README. `load_settings`
turns a validation failure into one :class:`SettingsError` line that names the
variable and how to fix it; the CLI prints that line and exits, no traceback.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]

_HOW_TO_FIX: dict[str, str] = {
    "DISCORD_TOKEN": "copy the bot token from the Discord developer portal (Bot → Reset Token) into .env",
    "DATABASE_URL": "use sqlite+aiosqlite:///path/to/paperclub.db or postgresql+asyncpg://user:pass@host/db",
    "DEV_GUILD_ID": "use the numeric id of your test server (Developer Mode → right-click the server → Copy ID)",
    "LOG_LEVEL": "use one of DEBUG, INFO, WARNING, ERROR",
    "DISCORD_API_BASE": "use an http(s) base URL such as http://127.0.0.1:8123, or leave it unset for Discord",
    "ARXIV_API_URL": "use an http(s) URL such as https://export.arxiv.org/api/query",
    "WEB_PORT": "use a port number such as 8080 (0: any free port), or leave it unset to serve nothing",
    "WEB_HOST": "use the address to listen on, such as 127.0.0.1 (the default) or 0.0.0.0",
    "PUBLIC_URL": "use the https address people reach the web server at, such as https://club.example.org",
}


class SettingsError(Exception):
    """A setting is missing or invalid; the message is one line naming it and the fix."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: SecretStr | None = Field(default=None, description="Bot token (secret).")
    database_url: str = Field(default="sqlite+aiosqlite:///paperclub.db")
    dev_guild_id: int | None = Field(default=None, gt=0)
    log_level: LogLevel = "INFO"
    discord_api_base: str | None = None
    arxiv_api_url: str = "https://export.arxiv.org/api/query"
    reminder_grace_minutes: int = Field(default=60, ge=0, le=24 * 60)
    max_pending_reminders: int = Field(default=500, ge=1, le=100_000)
    presenter_dm_days: int = Field(default=3, ge=0, le=30)
    suggestions_per_day: int = Field(default=5, ge=1, le=1000)
    web_port: int | None = Field(default=None, ge=0, le=65535)
    web_host: str = Field(default="127.0.0.1", min_length=1)
    public_url: str | None = None

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @field_validator("dev_guild_id", "discord_api_base", "web_port", "public_url", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if scheme not in ("sqlite+aiosqlite", "postgresql+asyncpg"):
            raise ValueError("must start with sqlite+aiosqlite:// or postgresql+asyncpg://")
        return value

    @field_validator("discord_api_base", "arxiv_api_url", "public_url")
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
    def _no_token_over_plain_http(cls, value: str | None) -> str | None:
        """The token goes to this address: plain http only to this machine (the local stand-in)."""
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme == "http" and (parts.hostname or "") not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("must use https unless it is on this machine (127.0.0.1 or localhost)")
        return value

    def require_token(self) -> str:
        """The token, or a SettingsError when it is missing (only `run` and `sync-commands` need it)."""
        if self.discord_token is None or not self.discord_token.get_secret_value().strip():
            raise SettingsError(f"DISCORD_TOKEN is not set: {_HOW_TO_FIX['DISCORD_TOKEN']}.")
        return self.discord_token.get_secret_value().strip()


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
