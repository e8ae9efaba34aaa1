"""PAPER_SOURCES and each source's URL, key and contact address: defaults, bad values in one line, the
Semantic Scholar key redacted from logs, and the clients the settings build."""

from __future__ import annotations

import io
import logging

import pytest

from bot.logs import REDACTED, setting_secrets, setup_logging
from bot.settings import SettingsError, load_settings
from bot.sources import SOURCE_NAMES
from bot.sources.clients import SourceClients

NAMES = (
    "PAPER_SOURCES",
    "SEMANTIC_SCHOLAR_API_URL",
    "SEMANTIC_SCHOLAR_API_KEY",
    "HUGGINGFACE_API_URL",
    "OPENREVIEW_API_URL",
    "OPENREVIEW_V1_API_URL",
    "ARXIV_API_URL",
    "CROSSREF_API_URL",
    "CROSSREF_MAILTO",
    "DATACITE_API_URL",
    "DISCORD_TOKEN",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env


def test_defaults_are_every_source_at_its_documented_root() -> None:
    settings = load_settings()
    assert settings.paper_sources == SOURCE_NAMES
    assert all(settings.source_enabled(name) for name in SOURCE_NAMES)
    assert settings.semantic_scholar_api_url == "https://api.semanticscholar.org/graph/v1"
    assert settings.huggingface_api_url == "https://huggingface.co"
    assert settings.openreview_api_url == "https://api2.openreview.net"
    assert settings.openreview_v1_api_url == "https://api.openreview.net"
    assert settings.crossref_api_url == "https://api.crossref.org"
    assert settings.datacite_api_url == "https://api.datacite.org"
    assert settings.semantic_scholar_api_key is None
    assert settings.crossref_mailto is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("arxiv, Crossref", ("arxiv", "crossref")),
        ("none", ()),
        ("", SOURCE_NAMES),
        ("semantic_scholar", ("semantic_scholar",)),
    ],
)
def test_paper_sources(monkeypatch: pytest.MonkeyPatch, value: str, expected: tuple[str, ...]) -> None:
    monkeypatch.setenv("PAPER_SOURCES", value)
    assert load_settings().paper_sources == expected


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("PAPER_SOURCES", "arxiv,scholar", "PAPER_SOURCES is invalid (names a source the bot does not know)"),
        ("PAPER_SOURCES", "arxiv,arxiv", "PAPER_SOURCES is invalid (a source is listed twice)"),
        ("SEMANTIC_SCHOLAR_API_URL", "ftp://s2.example", "SEMANTIC_SCHOLAR_API_URL is invalid"),
        ("HUGGINGFACE_API_URL", "hf-mirror.example/api", "HUGGINGFACE_API_URL is invalid"),
        ("OPENREVIEW_V1_API_URL", "or-mirror.example/v1", "OPENREVIEW_V1_API_URL is invalid"),
        ("CROSSREF_MAILTO", "two@a.org, b@c.org", "CROSSREF_MAILTO is invalid (must be one e-mail address)"),
        ("DATACITE_API_URL", "not a url", "DATACITE_API_URL is invalid"),
    ],
)
def test_bad_values_give_one_line(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert message.startswith(expected)
    assert "\n" not in message
    assert value not in message


def test_the_semantic_scholar_key_is_a_secret_redacted_from_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "s2k-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", f" {key} ")
    monkeypatch.setenv(
        "DISCORD_TOKEN", "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"
    )
    settings = load_settings()
    assert key not in repr(settings)
    assert key not in str(settings.model_dump())
    secrets = setting_secrets(settings)
    assert key in secrets
    assert settings.require_token() in secrets
    setup_logging("INFO", secrets=secrets)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    for existing in logging.getLogger().handlers:
        for f in existing.filters:
            handler.addFilter(f)
    log = logging.getLogger("test.sources.redact")
    log.addHandler(handler)
    try:
        log.warning("x-api-key: %s", key)
    finally:
        log.removeHandler(handler)
    assert key not in stream.getvalue()
    assert REDACTED in stream.getvalue()


async def test_clients_follow_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPER_SOURCES", "arxiv,semantic_scholar,crossref")
    monkeypatch.setenv("CROSSREF_MAILTO", "club@example.org")
    monkeypatch.setenv("CROSSREF_API_URL", "http://127.0.0.1:9/")
    clients = SourceClients.from_settings(load_settings())
    try:
        assert clients.semantic_scholar is not None
        assert clients.crossref is not None
        assert (clients.huggingface, clients.openreview, clients.datacite) == (None, None, None)
        assert clients.crossref.mailto == "club@example.org"
        assert clients.crossref.base_url == "http://127.0.0.1:9"
        assert str(clients.crossref.pacer.limit) == "10 per 1 s"  # the polite pool
        assert clients.search_arxiv
        assert str(clients.arxiv.pacer.limit) == "1 per 3 s"
    finally:
        await clients.close()
    monkeypatch.setenv("PAPER_SOURCES", "openreview")
    monkeypatch.setenv("OPENREVIEW_V1_API_URL", "http://127.0.0.1:9/v1")
    clients = SourceClients.from_settings(load_settings())
    try:
        assert not clients.search_arxiv  # arXiv still gives an arXiv paper its title; not searched
        assert clients.openreview is not None
        assert clients.openreview.v1_url == "http://127.0.0.1:9/v1"  # asked through the one guest pacer
        assert str(clients.openreview.pacer.limit) == "20 per 60 s"
    finally:
        await clients.close()
