"""A server's worth of rows made in the store, every kind of member data in it, for the service tests and
the bench: ``Seeded`` says which rows are the member's."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from db.models import ClubSession, Paper, SessionPaper, SessionSubscription
from db.models.core import CalendarToken, GuildSettings, SiteSettings
from db.models.reading import ReadingList, ReadingListItem, ReadingSearchQuery
from db.models.reminders import CANCELLED, CUSTOM, PENDING, PERSONAL, PRESENTER, SENT, Reminder
from db.models.series import Series, SeriesWeek
from db.models.sessions import PaperAlias, RecordingOptOut, RecordingPreference, SessionQuestion
from db.models.suggestions import (
    Suggestion,
    SuggestionPoll,
    SuggestionPollOption,
    SuggestionVolunteer,
    SuggestionVote,
)

NOW = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


@dataclass
class Seeded:
    """One server's rows: the ids of what ``user`` did there."""

    guild_id: int
    user: int
    other: int
    suggested: list[int] = field(default_factory=list)  # by user (the first from a message)
    voted: list[int] = field(default_factory=list)  # suggestions the user voted for
    presented: list[int] = field(default_factory=list)  # sessions the user presents
    subscribed: list[int] = field(default_factory=list)  # sessions the user asked to be reminded of


async def seed(
    session: AsyncSession,
    guild_id: int,
    user: int,
    other: int,
    *,
    sessions: int = 4,
    suggestions: int = 4,
    members: int = 3,
    public: bool = False,
) -> Seeded:
    """Sessions with papers, suggestions with votes and offers, subscriptions and reminders, a feed, a
    reading list, a series, a poll, a resolved name: ``user``'s and ``other``'s and ``members`` more."""
    found = Seeded(guild_id, user, other)
    everyone = [user, other, *range(other + 1, other + 1 + members)]
    session.add(GuildSettings(guild_id=guild_id))
    if public:
        session.add(SiteSettings(guild_id=guild_id, enabled=True, slug=f"club-{guild_id}"))
    papers = []
    for n in range(max(sessions, suggestions)):
        paper = Paper(
            guild_id=guild_id, key=f"url:p{n}", kind="url", title=f"Paper {n}", normalized_title=f"paper {n}"
        )
        session.add(paper)
        papers.append(paper)
    await session.flush()
    series = Series(
        guild_id=guild_id,
        name="Thursdays",
        name_key="thursdays",
        weekday=3,
        start_time="09:30",
        timezone="UTC",
        interval=1,
        first_date=date(2026, 12, 3),
        anchor_date=date(2026, 12, 3),
        created_by=user,
    )
    session.add(series)
    clubs = []
    for n in range(sessions):
        club = ClubSession(
            guild_id=guild_id,
            title=f"Session {n}",
            starts_at=NOW + timedelta(days=n * 7 - sessions * 3),
            timezone="UTC",
            presenter_id=user if n % 2 == 0 else other,
            presenter_name=f"member {n}",
            created_by=user,
        )
        session.add(club)
        clubs.append(club)
    await session.flush()
    session.add(
        SeriesWeek(
            series_id=series.id, guild_id=guild_id, week_date=date(2026, 12, 3), session_id=clubs[-1].id
        )
    )
    for club, paper in zip(clubs, papers, strict=False):
        session.add(SessionPaper(session_id=club.id, paper_id=paper.id))
        if club.presenter_id == user:
            found.presented.append(club.id)
    for n, club in enumerate(clubs):
        for member in everyone[: 1 + n % len(everyone)]:
            session.add(SessionSubscription(session_id=club.id, user_id=member, before_minutes=60))
            if member == user:
                found.subscribed.append(club.id)
            status = SENT if club.starts_at < NOW else PENDING
            session.add(
                _reminder(guild_id, PERSONAL, club.id, member, club.starts_at - timedelta(hours=1), status)
            )
        if club.presenter_id is not None:
            due = club.starts_at - timedelta(days=3)
            session.add(
                _reminder(
                    guild_id, PRESENTER, club.id, club.presenter_id, due, SENT if due < NOW else PENDING
                )
            )
    custom = _reminder(guild_id, CUSTOM, None, None, NOW + timedelta(days=1), PENDING)
    custom.channel_id, custom.message, custom.created_by = 555, "Read the paper", user
    cancelled = _reminder(guild_id, CUSTOM, clubs[0].id, None, NOW + timedelta(days=2), CANCELLED)
    cancelled.channel_id, cancelled.cancelled_by = 555, user
    session.add_all([custom, cancelled])
    rows = []
    for n in range(suggestions):
        by = user if n % 2 == 0 else other
        row = Suggestion(
            guild_id=guild_id,
            paper_id=papers[n].id,
            submitter_id=by,
            reason=f"reason {n}",
            status="open",
            reviewed_by=user if n == 1 else None,
            source_channel_id=777 if n == 0 else None,
            source_message_id=888 if n == 0 else None,
        )
        session.add(row)
        rows.append(row)
    await session.flush()
    for n, row in enumerate(rows):
        if row.submitter_id == user:
            found.suggested.append(row.id)
        for member in everyone[: 2 + n % len(everyone)]:
            session.add(SuggestionVote(suggestion_id=row.id, user_id=member))
            if member == user:
                found.voted.append(row.id)
        session.add(SuggestionVolunteer(suggestion_id=row.id, user_id=everyone[n % len(everyone)]))
    poll = SuggestionPoll(guild_id=guild_id, channel_id=555, created_by=user, ends_at=NOW + timedelta(days=1))
    session.add(poll)
    await session.flush()
    session.add(SuggestionPollOption(poll_id=poll.id, position=1, suggestion_id=rows[0].id))
    listed = ReadingList(guild_id=guild_id, name="Worlds", normalized_name="worlds", created_by=user)
    session.add(listed)
    await session.flush()
    session.add(ReadingListItem(list_id=listed.id, paper_id=papers[0].id, added_by=user))
    session.add(
        PaperAlias(guild_id=guild_id, name="P0", normalized_name="p0", paper_id=papers[0].id, chosen_by=user)
    )
    session.add(ReadingSearchQuery(guild_id=guild_id, query="worlds"))
    for n, club in enumerate(clubs):  # kept out of the recording, questions (signed or not)
        for member in everyone[: 1 + n % 2]:
            session.add(RecordingOptOut(session_id=club.id, user_id=member, name=f"member {member}"))
            session.add(
                SessionQuestion(
                    session_id=club.id, user_id=member, named=n % 2 == 0, name=None, text=f"why {n}?"
                )
            )
    session.add(RecordingPreference(guild_id=guild_id, user_id=user, name=f"member {user}"))
    for member in (user, other):
        session.add(
            CalendarToken(guild_id=guild_id, user_id=member, token_hash=f"{guild_id}-{member}".ljust(64, "0"))
        )
    await session.flush()
    return found


def _reminder(
    guild_id: int, kind: str, session_id: int | None, user_id: int | None, due: datetime, status: str
) -> Reminder:
    plan = {PERSONAL: f"personal:{user_id}", PRESENTER: "presenter"}.get(kind)
    return Reminder(
        guild_id=guild_id,
        kind=kind,
        user_id=user_id,
        session_id=session_id,
        due_at=due,
        next_attempt_at=due,
        plan_key=plan,
        status=status,
        sent_at=due if status == SENT else None,
    )
