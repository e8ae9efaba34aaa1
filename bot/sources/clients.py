"""The outside sources' clients, built once (in ``main()``) from the settings and closed together."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from bot.settings import Settings
from bot.sources.arxiv import ArxivClient
from bot.sources.doi import CrossrefClient, DataCiteClient
from bot.sources.http import ClientOptions
from bot.sources.huggingface import HuggingFaceClient
from bot.sources.openreview import OpenReviewClient
from bot.sources.pace import StoreTurns, Timer
from bot.sources.semantic_scholar import SemanticScholarClient


@dataclass
class SourceClients:
    """One client per source PAPER_SOURCES turns on (None: off); arXiv's is always built."""

    arxiv: ArxivClient = field(default_factory=ArxivClient)
    semantic_scholar: SemanticScholarClient | None = None
    huggingface: HuggingFaceClient | None = None
    openreview: OpenReviewClient | None = None
    crossref: CrossrefClient | None = None
    datacite: DataCiteClient | None = None
    search_arxiv: bool = False  # title searches ask arXiv (PAPER_SOURCES names it)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        timer: Timer | None = None,
        turns: StoreTurns | None = None,
    ) -> SourceClients:
        """The clients for ``settings``; ``turns`` shares arXiv's pace with the store's other processes."""
        on = settings.source_enabled
        options: ClientOptions = {"mailto": settings.crossref_mailto, "timer": timer}
        key = settings.semantic_scholar_api_key
        built: dict[str, Callable[[], Any]] = {
            "semantic_scholar": lambda: SemanticScholarClient(
                settings.semantic_scholar_api_url, api_key=key.get_secret_value() if key else None, **options
            ),
            "huggingface": lambda: HuggingFaceClient(settings.huggingface_api_url, **options),
            "openreview": lambda: OpenReviewClient(
                settings.openreview_api_url, v1_url=settings.openreview_v1_api_url, **options
            ),
            "crossref": lambda: CrossrefClient(settings.crossref_api_url, **options),
            "datacite": lambda: DataCiteClient(settings.datacite_api_url, **options),
        }
        return cls(
            arxiv=ArxivClient(settings.arxiv_api_url, turns=turns, **options),
            search_arxiv=on("arxiv"),
            **{name: make() for name, make in built.items() if on(name)},
        )

    async def close(self) -> None:
        """Close every client's connection pool."""
        for client in (getattr(self, f.name) for f in fields(self) if f.name != "search_arxiv"):
            if client is not None:
                await client.close()
