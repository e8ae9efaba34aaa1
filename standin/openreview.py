"""A local stand-in for OpenReview's public notes, API v2 at its root and API v1 under ``/v1``, for tests and
the demo.

``GET /notes?forum=<id>`` answers a submission with its reviews and decision, ``GET /notes?id=<id>`` one note,
``GET /notes/search?term=...&source=forum`` the full-text search (openreview-py's ``search_notes``: ``term``,
``content``, ``group``, ``source``, ``limit``), here every word of the term in a note's title or abstract.
Each API holds only its own venues, split by year as OpenReview's are: ICLR up to 2023, NeurIPS and the
others up to 2022 on v1 (openreview/openreview#299, openreview/openreview-py#1808, #2097), later ones on v2.
Shapes (docs.openreview.net, "Using the API"): v2 notes carry ``invitations`` and ``{"value": ...}`` content
fields, v1 notes one ``invitation`` and plain values. Reviews are here so tests can show a client never
reads their text; a forum made hidden answers 403 ForbiddenError, as a non-public one does for a guest.

Limits: a guest's 20 requests a minute (openreview/openreview#254), across both APIs; beyond it a 429
``RateLimitError`` saying when the window frees (``details.resetTime``, "try again in N seconds") and no
Retry-After. :meth:`OpenReviewStandin.lock_out` refuses every request the same way for 30-60 minutes, as
OpenReview locks an address out (openreview/openreview#437).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from aiohttp import web

from standin.http_service import Clock, ServiceStandin, SlidingWindow

CDATE = 1_700_000_000_000  # ms since the epoch, as OpenReview stamps notes
GUEST_LIMIT = 20  # requests a minute
Api = Literal["v1", "v2"]
_YEAR = re.compile(r"/((?:19|20)\d\d)(?:/|$)")


def api_of(venue_id: Any) -> Api:
    """The API a venue's notes live on: v1 for ICLR up to 2023 and any other venue up to 2022."""
    if not isinstance(venue_id, str) or not (found := _YEAR.search(venue_id)):
        return "v2"
    year = int(found.group(1))
    return "v1" if year <= 2022 or (venue_id.startswith("ICLR.cc/") and year <= 2023) else "v2"


class OpenReviewStandin(ServiceStandin):
    """An aiohttp server on 127.0.0.1 answering like api2.openreview.net, and api.openreview.net under /v1."""

    name = "openreview"
    keep_types = frozenset({"id", "forum", "notes"})

    def __init__(
        self, *, clock: Clock | None = None, limit: int = GUEST_LIMIT, per: float = 60.0, wall: Any = None
    ) -> None:
        super().__init__(clock=clock)
        self.notes: dict[str, dict[str, Any]] = {}  # id -> the note as stored (v2's field names)
        self.apis: dict[str, Api] = {}  # forum id -> the API holding it
        self.hidden: set[str] = set()  # forums not public to guests (403)
        self.mixed_shapes = False  # v2 answers carry v1-shaped notes among their own (a broken answer)
        self.window = SlidingWindow(limit, per)
        self.wall = wall or (lambda: datetime.now(UTC))
        self.locked_until: float | None = None
        self.lock_out_after: int | None = None  # lock out (for lockout_seconds) once this many were admitted
        self.admitted = 0
        self.lockout_seconds = 1800.0

    @property
    def v1_url(self) -> str:
        """API v1's root (``api.openreview.net``)."""
        return f"{self.url}/v1"

    def lock_out(self, seconds: float = 1800.0) -> None:
        """Refuse every request for ``seconds`` from now, as OpenReview's lockout does."""
        self.locked_until = self.clock() + seconds

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
        api: Api | None = None,
    ) -> dict[str, Any]:
        """A public submission with its reviews' text and, when given, its decision, on the API its venue's
        year puts it on (``api`` to say otherwise)."""
        prefix = venue_id if isinstance(venue_id, str) else "Venue.cc/2024/Conference"
        self.apis[forum_id] = api or api_of(venue_id)
        submission = self._note(
            forum_id,
            forum_id,
            f"{prefix}/-/{'Blind_Submission' if self.apis[forum_id] == 'v1' else 'Submission'}",
            {
                "title": title,
                "authors": list(authors or ["Anonymous"]),
                "abstract": "An abstract.",
                "venue": venue,
                "venueid": venue_id,
            },
            number=number,
        )
        for i, text in enumerate(reviews or []):
            self._note(
                f"{forum_id}R{i}",
                forum_id,
                f"{prefix}/Submission{number}/-/Official_Review",
                {"summary": text, "strengths": text, "weaknesses": text, "rating": 8},
                offset=i + 1,
            )
        if decision is not None:
            self._note(
                f"{forum_id}D",
                forum_id,
                f"{prefix}/Submission{number}/-/Decision",
                {"decision": decision, "comment": "The committee's reasons."},
                offset=100,
            )
        return submission

    def _note(
        self,
        note_id: str,
        forum: str,
        invitation: str,
        content: dict[str, Any],
        offset: int = 0,
        number: int | None = None,
    ) -> dict[str, Any]:
        note = {
            "id": note_id,
            "forum": forum,
            "number": number,
            "replyto": None if note_id == forum else forum,
            "invitation": invitation,
            "signatures": [invitation.rsplit("/-/", 1)[0]],
            "readers": ["everyone"],
            "writers": [],
            "cdate": CDATE + offset,
            "mdate": CDATE + offset,
            "content": content,
        }
        self.notes[note_id] = note
        return note

    def shaped(self, note: dict[str, Any], api: Api) -> dict[str, Any]:
        """The note as ``api`` answers it."""
        if api == "v1":
            return {
                **note,
                "original": None,
                "tcdate": note["cdate"],
                "tmdate": note["mdate"],
                "ddate": None,
                "nonreaders": [],
            }
        v2 = {k: v for k, v in note.items() if k != "invitation"}
        v2["invitations"] = [note["invitation"]]
        v2["content"] = {k: {"value": v} for k, v in note["content"].items()}
        v2["domain"] = note["invitation"].split("/-/", 1)[0]
        return v2

    # -- limits ----------------------------------------------------------------------------------------
    def refuse(self, request: web.Request) -> web.Response | None:
        """The lockout's 429, while it lasts (it begins once ``lock_out_after`` requests were admitted)."""
        now = self.clock()
        if self.lock_out_after is not None and self.admitted >= self.lock_out_after:
            self.lock_out_after = None
            self.lock_out(self.lockout_seconds)
        if self.locked_until is not None and now < self.locked_until:
            return self.too_fast(request, self.locked_until - now)
        return None

    def over_limit(self, request: web.Request, now: float) -> float | None:
        """Seconds to wait before this request fits the limit, or None when it is admitted."""
        wait = self.window.admit(now)
        self.admitted += wait is None
        return wait

    def too_fast(self, request: web.Request, wait: float | None, told: bool = False) -> web.Response:
        """OpenReview's 429 ``RateLimitError`` answer, saying when to try again (no Retry-After)."""
        seconds = wait if wait is not None else self.window.per
        reset = (self.wall() + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        minutes, rest = divmod(int(seconds + 0.999), 60)
        again = f"{minutes} minutes and {rest} seconds" if minutes else f"{rest} seconds"
        return web.json_response(
            {
                "name": "RateLimitError",
                "message": f"Too many requests: You have made {self.window.requests + 1} requests, surpassing "
                f"the limit of {self.window.requests} requests. Please try again in {again}",
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

    # -- routes ----------------------------------------------------------------------------------------
    def add_routes(self, router: web.UrlDispatcher) -> None:
        """Register ``/notes`` and ``/notes/search`` for v2, and under ``/v1`` for v1."""
        roots: tuple[tuple[str, Api], ...] = (("", "v2"), ("/v1", "v1"))
        for prefix, api in roots:
            router.add_get(f"{prefix}/notes", self._notes_of(api))
            router.add_get(f"{prefix}/notes/search", self._search_of(api))

    def _notes_answer(self, notes: list[dict[str, Any]], api: Api) -> web.Response:
        # mixed_shapes: a broken v2 answer whose replies come in v1's shape
        mixed = api == "v2" and self.mixed_shapes
        shaped = [self.shaped(n, "v1" if mixed and n["id"] != n["forum"] else api) for n in notes]
        return web.json_response({"notes": shaped, "count": len(shaped)})

    def _search_of(self, api: Api) -> Any:
        async def search(request: web.Request) -> web.Response:
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
                parts = (note["content"].get(f) for f in ("title", "abstract"))
                return " ".join(p for p in parts if isinstance(p, str)).casefold()

            found = [
                n
                for n in sorted(self.notes.values(), key=lambda n: n["cdate"])
                if self.apis.get(n["forum"]) == api
                and n["forum"] not in self.hidden
                and (source != "forum" or n["id"] == n["forum"])
                and (source != "reply" or n["id"] != n["forum"])
                and all(word in text(n) for word in words)
            ]
            return self._notes_answer(found[:limit], api)

        return search

    def _notes_of(self, api: Api) -> Any:
        async def notes(request: web.Request) -> web.Response:
            if note_id := request.query.get("id"):
                note = self.notes.get(note_id)
                if note is None or self.apis.get(note["forum"]) != api:
                    return web.json_response(
                        {
                            "name": "NotFoundError",
                            "message": f"The Note {note_id} was not found",
                            "status": 404,
                        },
                        status=404,
                    )
                if note["forum"] in self.hidden:
                    return self._forbidden(note_id)
                return self._notes_answer([note], api)
            if forum := request.query.get("forum"):
                if forum in self.hidden and self.apis.get(forum) == api:
                    return self._forbidden(forum)
                held = (n for n in self.notes.values() if n["forum"] == forum and self.apis.get(forum) == api)
                return self._notes_answer(sorted(held, key=lambda n: n["cdate"]), api)
            return web.json_response(
                {"name": "ValidationError", "message": "Provide id or forum", "status": 400}, status=400
            )

        return notes

    @staticmethod
    def _forbidden(note_id: str) -> web.Response:
        return web.json_response(
            {
                "name": "ForbiddenError",
                "message": f"You do not have permission to read the Note {note_id}",
                "status": 403,
            },
            status=403,
        )
