"""The source clients the settings turn on, built once (in ``main()``) and closed together.

arXiv's client (:class:`bot.arxiv.ArxivClient`) is built by the bot as before; ``settings.source_enabled
("arxiv")`` says whether to ask it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.settings import Settings
from bot.sources.crossref import CrossrefClient
from bot.sources.datacite import DataCiteClient
from bot.sources.http import ClientOptions, Timer
from bot.sources.huggingface import HuggingFaceClient
from bot.sources.openreview import OpenReviewClient
from bot.sources.semantic_scholar import SemanticScholarClient


@dataclass
class SourceClients:
    """One client per source PAPER_SOURCES turns on; None for a source turned off."""

    semantic_scholar: SemanticScholarClient | None = None
    huggingface: HuggingFaceClient | None = None
    openreview: OpenReviewClient | None = None
    crossref: CrossrefClient | None = None
    datacite: DataCiteClient | None = None

    @classmethod
    def from_settings(
        cls, settings: Settings, *, timer: Timer | None = None, max_wait: float = 10.0
    ) -> SourceClients:
        """The clients for ``settings`` (base URLs, the Semantic Scholar key, the contact address)."""
        on = settings.source_enabled
        options: ClientOptions = {"mailto": settings.crossref_mailto, "timer": timer, "max_wait": max_wait}
        key = (
            settings.semantic_scholar_api_key.get_secret_value()
            if settings.semantic_scholar_api_key
            else None
        )
        return cls(
            semantic_scholar=SemanticScholarClient(settings.semantic_scholar_api_url, api_key=key, **options)
            if on("semantic_scholar")
            else None,
            huggingface=HuggingFaceClient(settings.huggingface_api_url, **options)
            if on("huggingface")
            else None,
            openreview=OpenReviewClient(settings.openreview_api_url, **options) if on("openreview") else None,
            crossref=CrossrefClient(settings.crossref_api_url, **options) if on("crossref") else None,
            datacite=DataCiteClient(settings.datacite_api_url, **options) if on("datacite") else None,
        )

    async def close(self) -> None:
        """Close every client's connection pool."""
        for client in (
            self.semantic_scholar,
            self.huggingface,
            self.openreview,
            self.crossref,
            self.datacite,
        ):
            if client is not None:
                await client.close()
