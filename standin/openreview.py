"""A local stand-in for OpenReview API v2's public notes, for tests and the demo.

``GET /notes?forum=<id>`` answers a submission with its reviews and decision, ``GET /notes?id=<id>`` one note,
in the shapes of OpenReview's docs (https://docs.openreview.net, API v2 entities: Note); reviews are here so
tests can show a client never reads their text. ``GET /notes/search?term=...&source=forum`` is the API's
full-text search (openreview-py's ``search_notes``: ``term``, ``content``, ``group``, ``source``, ``limit``),
here every word of the term in a note's title or abstract, submissions only for ``source=forum``.
OpenReview publishes no rate limit (its maintainers set and change them: openreview/openreview#254, #437),
so the stand-in holds requests to ``limit`` per ``per`` seconds and answers beyond that with OpenReview's
RateLimitError body and no Retry-After.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

from standin.http_service import Clock, ServiceStandin, SlidingWindow

CDATE = 1_700_000_000_000  # ms since the epoch, as OpenReview stamps notes


class OpenReviewStandin(ServiceStandin):
    """An aiohttp server on 127.0.0.1 answering like api2.openreview.net's /notes."""

    name = "openreview"
    keep_types = frozenset({"id", "forum", "notes"})

    def __init__(
        self, *, clock: Clock | None = None, limit: int = 60, per: float = 60.0, wall: Any = None
    ) -> None:
        super().__init__(clock=clock)
        self.notes: dict[str, dict[str, Any]] = {}
        self.window = SlidingWindow(limit, per)
        self.wall = wall or (lambda: datetime.now(UTC))

    def add_submission(
        self,
        forum_id: str,
        title: Any,
        *,
        venue: Any,
        venue_id: Any,
        number: int = 1,
        decision: Any = None,
        reviews: list[Any] | None = None,
        authors: list[str] | None = None,
    ) -> dict[str, Any]:
        """A public submission with its reviews' text and, when given, its decision."""
        prefix = venue_id if isinstance(venue_id, str) else "Venue.cc/2024/Conference"
        submission = self._note(
            forum_id,
            forum_id,
            [f"{prefix}/-/Submission"],
            {
                "title": {"value": title},
                "authors": {"value": list(authors or ["Anonymous"])},
                "abstract": {"value": "An abstract."},
                "venue": {"value": venue},
                "venueid": {"value": venue_id},
            },
        )
        for i, text in enumerate(reviews or []):
            self._note(
                f"{forum_id}R{i}",
                forum_id,
                [f"{prefix}/Submission{number}/-/Official_Review"],
                {
                    "summary": {"value": text},
                    "strengths": {"value": text},
                    "weaknesses": {"value": text},
                    "rating": {"value": 8},
                },
                offset=i + 1,
            )
        if decision is not None:
            self._note(
                f"{forum_id}D",
                forum_id,
                [f"{prefix}/Submission{number}/-/Decision"],
                {"decision": {"value": decision}, "comment": {"value": "The committee's reasons."}},
                offset=100,
            )
        return submission

    def _note(
        self, note_id: str, forum: str, invitations: list[str], content: dict[str, Any], offset: int = 0
    ) -> dict[str, Any]:
        note = {
            "id": note_id,
            "forum": forum,
            "replyto": None if note_id == forum else forum,
            "invitations": invitations,
            "signatures": [invitations[0].rsplit("/-/", 1)[0]],
            "readers": ["everyone"],
            "writers": [],
            "cdate": CDATE + offset,
            "mdate": CDATE + offset,
            "content": content,
        }
        self.notes[note_id] = note
        return note

    def over_limit(self, request: web.Request, now: float) -> float | None:
        """Seconds to wait before this request fits the limit, or None when it is admitted."""
        return self.window.admit(now)

    def too_fast(self, request: web.Request, wait: float | None, told: bool = False) -> web.Response:
        """OpenReview's 429 ``RateLimitError`` answer, with when the limit resets."""
        seconds = wait if wait is not None else self.window.per
        reset = (self.wall() + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        return web.json_response(
            {
                "name": "RateLimitError",
                "message": f"Too many requests: You have made {self.window.requests + 1} requests, surpassing "
                f"the limit of {self.window.requests} requests. Please try again in {int(seconds) + 1} seconds",
                "status": 429,
                "details": {
                    "limit": self.window.requests,
                    "remaining": 0,
                    "resetTime": reset,
                    "used": self.window.requests + 1,
                },
            },
            status=429,
        )

    def add_routes(self, router: web.UrlDispatcher) -> None:
        """Register the ``/notes`` route."""
        router.add_get("/notes", self._notes)
        router.add_get("/notes/search", self._search)

    async def _search(self, request: web.Request) -> web.Response:
        term = request.query.get("term", "").strip()
        if not term:
            return web.json_response(
                {"name": "ValidationError", "message": "term is required", "status": 400}, status=400
            )
        words = term.casefold().split()
        source = request.query.get("source", "all")
        try:
            limit = max(0, min(int(request.query.get("limit", "1000")), 1000))
        except ValueError:
            limit = 1000

        def text(note: dict[str, Any]) -> str:
            content = note["content"]
            parts = (content.get(f, {}).get("value") for f in ("title", "abstract"))
            return " ".join(p for p in parts if isinstance(p, str)).casefold()

        found = [
            n
            for n in sorted(self.notes.values(), key=lambda n: n["cdate"])
            if (source != "forum" or n["id"] == n["forum"])
            and (source != "reply" or n["id"] != n["forum"])
            and all(word in text(n) for word in words)
        ]
        return web.json_response({"notes": found[:limit], "count": len(found)})

    async def _notes(self, request: web.Request) -> web.Response:
        if note_id := request.query.get("id"):
            note = self.notes.get(note_id)
            if note is None:
                return web.json_response(
                    {"name": "NotFoundError", "message": f"The Note {note_id} was not found", "status": 404},
                    status=404,
                )
            return web.json_response({"notes": [note], "count": 1})
        if forum := request.query.get("forum"):
            notes = sorted((n for n in self.notes.values() if n["forum"] == forum), key=lambda n: n["cdate"])
            return web.json_response({"notes": notes, "count": len(notes)})
        return web.json_response(
            {"name": "ValidationError", "message": "Provide id or forum", "status": 400}, status=400
        )
