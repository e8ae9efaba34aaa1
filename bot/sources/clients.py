"""The outside sources' clients, built once (in ``main()``) from the settings and closed together."""

from __future__ import annotations

from dataclasses import dataclass, field

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
    """One client per source PAPER_SOURCES turns on (None for one turned off). arXiv's is always built: an
    arXiv paper's own title comes from it; ``search_arxiv`` says whether title searches may ask it."""

    arxiv: ArxivClient = field(default_factory=ArxivClient)
    semantic_scholar: SemanticScholarClient | None = None
    huggingface: HuggingFaceClient | None = None
    openreview: OpenReviewClient | None = None
    crossref: CrossrefClient | None = None
    datacite: DataCiteClient | None = None
    search_arxiv: bool = False

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        timer: Timer | None = None,
        max_wait: float = 10.0,
        turns: StoreTurns | None = None,
    ) -> SourceClients:
        """The clients for ``settings`` (base URLs, the Semantic Scholar key, the contact address); ``turns``
        shares arXiv's pace with the other processes on the store."""
        on = settings.source_enabled
        options: ClientOptions = {"mailto": settings.crossref_mailto, "timer": timer, "max_wait": max_wait}
        key = (
            settings.semantic_scholar_api_key.get_secret_value()
            if settings.semantic_scholar_api_key
            else None
        )
        return cls(
            arxiv=ArxivClient(settings.arxiv_api_url, turns=turns, **options),
            semantic_scholar=SemanticScholarClient(settings.semantic_scholar_api_url, api_key=key, **options)
            if on("semantic_scholar")
            else None,
            huggingface=HuggingFaceClient(settings.huggingface_api_url, **options)
            if on("huggingface")
            else None,
            openreview=OpenReviewClient(
                settings.openreview_api_url, v1_url=settings.openreview_v1_api_url, **options
            )
            if on("openreview")
            else None,
            crossref=CrossrefClient(settings.crossref_api_url, **options) if on("crossref") else None,
            datacite=DataCiteClient(settings.datacite_api_url, **options) if on("datacite") else None,
            search_arxiv=on("arxiv"),
        )

    @property
    def arxiv_search(self) -> ArxivClient | None:
        """arXiv for title searches, when PAPER_SOURCES names it."""
        return self.arxiv if self.search_arxiv else None

    async def close(self) -> None:
        """Close every client's connection pool."""
        for client in (
            self.arxiv,
            self.semantic_scholar,
            self.huggingface,
            self.openreview,
            self.crossref,
            self.datacite,
        ):
            if client is not None:
                await client.close()
