"""What the bot keeps (:data:`KINDS`): what, why, how long, how deleted (a member's kinds in this order)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from sqlalchemy import select

from bot.services.privacy.rows import SUBSCRIPTION, SUGGESTION, PresenterHistory, Rows
from bot.services.privacy.servers import (
    CLAIM_DAYS,
    JOB_DAYS,
    REMINDER_DAYS,
    SEARCH_DAYS,
    SESSION_NOTES_DAYS,
    Expiry,
    ended_reminders,
    expired_claims,
    idle_jobs,
    old_opt_outs,
    old_questions,
    old_searches,
)
from db.models import ClubSession, SessionSubscription
from db.models.core import FORMER_MEMBER, CalendarToken
from db.models.reading import ReadingList, ReadingListItem
from db.models.reminders import PRESENTER, RECAP, Reminder
from db.models.series import Series
from db.models.sessions import PaperAlias, RecordingOptOut, RecordingPreference, SessionQuestion
from db.models.suggestions import Suggestion, SuggestionPoll, SuggestionVolunteer, SuggestionVote

MEMBER: Final = "member"  # about one member: /privacy shows it, Delete my data deletes it
SERVER: Final = "server"  # the club's own: kept while the bot is in the server, then for the grace period
WORK: Final = "work"  # records of sends and work: deleted when their lifetime ends


@dataclass(frozen=True)
class Kind:
    """One kind of data: what it is, why and how long it is kept, what deleting does (``{grace}``: the grace
    days); ``member``: where a member's rows are kept; ``expiry``: what is past its lifetime."""

    key: str
    name: str
    what: str
    why: str
    kept: str
    delete: str
    member: tuple[Rows | PresenterHistory, ...] = ()
    expiry: Expiry | None = None
    scope: str = MEMBER
    kept_note: str = ""  # why deleting left some rows as they were (``Erased.kept``)

    def said(self, grace_days: int) -> Kind:
        """The kind with its texts' ``{grace}`` filled in."""
        texts = {
            name: getattr(self, name).format(grace=grace_days) for name in ("what", "why", "kept", "delete")
        }
        return replace(self, **texts)


# A presenter's DMs for a session the member still presents (its club page shows them).
_still_presenting = Reminder.kind.in_((PRESENTER, RECAP)) & Reminder.session_id.in_(
    select(ClubSession.id).where(ClubSession.presenter_id == Reminder.user_id)
)

KINDS: Final[tuple[Kind, ...]] = (
    Kind(
        "links",
        "Links to your messages",
        "The message you used *Suggest this paper* on, linked from the suggestion's post.",
        "So readers can find the conversation the paper came from.",
        "As long as the suggestion.",
        "The link is taken off the post.",
        (
            Rows(
                Suggestion.submitter_id,
                clear={"source_channel_id": None, "source_message_id": None},
                only=Suggestion.source_message_id.is_not(None),
                follow=SUGGESTION,
            ),
        ),
    ),
    Kind(
        "suggestions",
        "Suggestions",
        "The papers you suggested, with your reason and topic, credited to you.",
        "To show who suggested what, and to tell you by DM how it was reviewed.",
        "As long as the club keeps the suggestion.",
        "They stay for the club, credited to “a member”; their posts are edited to match.",
        (Rows(Suggestion.submitter_id, clear={"submitter_id": FORMER_MEMBER}, follow=SUGGESTION),),
    ),
    Kind(
        "votes",
        "Votes",
        "The suggestions you upvoted.",
        "To count the votes and order the queue.",
        "Until you take the vote back, or the suggestion is deleted.",
        "Removed; the counts on the posts go down.",
        (Rows(SuggestionVote.user_id, via=(SuggestionVote.suggestion_id, Suggestion), follow=SUGGESTION),),
    ),
    Kind(
        "offers",
        "Offers to present",
        "The suggestions you offered to present (*I'd present this*).",
        "To show the organizers who would present a paper.",
        "Until you take the offer back, or the suggestion is deleted.",
        "Removed from the posts.",
        (
            Rows(
                SuggestionVolunteer.user_id,
                via=(SuggestionVolunteer.suggestion_id, Suggestion),
                follow=SUGGESTION,
            ),
        ),
    ),
    Kind(
        "presenter",
        "Presenter history",
        "The sessions you present or presented, with your name (the weeks you claimed with *I'll present*).",
        "To say who presents on the announcement, cards and pages, and to send you the presenter's DMs.",
        "As long as the club keeps the session.",
        "The sessions stay without your name, unless the server's club page shows them: there your name "
        "stays (the reply says so), and an organizer can change it.",
        (PresenterHistory(),),
        kept_note="the server's club page shows you presenting them; an organizer can change that",
    ),
    Kind(
        "remind_me",
        "Remind me",
        "The sessions you asked to be reminded of (*Remind me*, `/remind me`, or *Interested* on the "
        "session's Discord event).",
        "To DM you before each one (once, however you asked), to count who is coming, and to list them in "
        "your personal calendar feed.",
        "Until you press *Remind me* again or unmark *Interested*, or the session is deleted.",
        "Removed: no more reminders of them.",
        (
            Rows(
                SessionSubscription.user_id,
                via=(SessionSubscription.session_id, ClubSession),
                follow=SUBSCRIPTION,
            ),
        ),
    ),
    Kind(
        "recording",
        "Kept out of a recording",
        "The sessions whose recording you asked to stay out of (*Keep me out of the recording*), with your "
        "display name.",
        "So the presenter, who alone gets the names by DM with the organizers, leaves you out of what is published.",
        f"Until you press the button again; deleted {SESSION_NOTES_DAYS} days after the session.",
        "Removed: the presenter gets no more DMs naming you.",
        (Rows(RecordingOptOut.user_id, via=(RecordingOptOut.session_id, ClubSession), follow=SUBSCRIPTION),),
        expiry=old_opt_outs,
    ),
    Kind(
        "recording_always",
        "Kept out of every recording",
        "That you stay out of every recording of the server (*Always keep me out*), with your display name.",
        "So every session's presenter gets your name before it starts.",
        "Until you press *Always keep me out* again.",
        "Removed: presenters no longer get your name.",
        (Rows(RecordingPreference.user_id),),
    ),
    Kind(
        "questions",
        "Questions for presenters",
        "The questions you asked (*Ask the presenter*), and your name on those you chose to sign.",
        "To send them to the presenter by DM before the session; organizers can list them.",
        f"Deleted {SESSION_NOTES_DAYS} days after the session.",
        "Removed: the presenter gets no more DMs with them.",
        (Rows(SessionQuestion.user_id, via=(SessionQuestion.session_id, ClubSession), follow=SUBSCRIPTION),),
        expiry=old_questions,
    ),
    Kind(
        "reminders",
        "Reminders to you",
        "The DMs planned for you (*Remind me*, a presenter's) and the record of those sent.",
        "To send each one once, on time.",
        f"Until sent, then {REMINDER_DAYS} days.",
        "Removed: none comes afterwards.",
        (Rows(Reminder.user_id, keep=_still_presenting),),
        kept_note="a presenter's DMs, for sessions the club page shows you presenting",
    ),
    Kind(
        "calendar_feed",
        "Personal calendar feed",
        "A fingerprint (SHA-256) of your feed's secret address (`/calendar link`), not the address.",
        "To serve the sessions you asked to be reminded of at that address.",
        "Until you reset it (`/calendar reset`).",
        "Removed: the address answers “not found” at once.",
        (Rows(CalendarToken.user_id),),
    ),
    Kind(
        "organizer",
        "Organizer records",
        "Your id on what you did as an organizer: sessions, series, reminders and reading lists you made, "
        "suggestions you reviewed, polls you ran, names you resolved to papers.",
        "To show who reviewed a suggestion or resolved a name.",
        "As long as each thing is kept.",
        "The things stay for the club; your id goes from them.",
        (
            Rows(ClubSession.created_by, clear={"created_by": None}),
            Rows(Series.created_by, clear={"created_by": None}),
            Rows(Reminder.created_by, clear={"created_by": None}),
            # a cancelled automatic reminder's canceller tells the planner not to plan it again
            Rows(Reminder.cancelled_by, clear={"cancelled_by": FORMER_MEMBER}),
            Rows(ReadingList.created_by, clear={"created_by": None}),
            Rows(
                ReadingListItem.added_by,
                via=(ReadingListItem.list_id, ReadingList),
                clear={"added_by": None},
            ),
            Rows(Suggestion.reviewed_by, clear={"reviewed_by": None}, follow=SUGGESTION),
            Rows(SuggestionPoll.created_by, clear={"created_by": FORMER_MEMBER}),
            Rows(PaperAlias.chosen_by, clear={"chosen_by": None}),
        ),
    ),
    Kind(
        "club",
        "The club's data",
        "What the server's organizers and members made: settings, sessions, series, papers, reading lists, "
        "suggestions and polls, the website's texts.",
        "It is the club's programme and history.",
        "While the bot is in the server; deleted in full {grace} days after the bot is removed (added back "
        "sooner, nothing is lost).",
        "Organizers edit or cancel each thing; the bot's operator can delete all of it at once.",
        scope=SERVER,
    ),
    Kind(
        "departures",
        "Servers the bot left",
        "A server's id and when the bot was removed from it.",
        "To delete the server's data when its grace period ends.",
        "Until then ({grace} days), or until the bot is added back.",
        "Deleted with the server's data.",
        scope=SERVER,
    ),
    Kind(
        "sent_reminders",
        "Reminders sent",
        "Each reminder that went out, failed, was missed or cancelled: where, when, and how it went.",
        "So none goes out twice, and `/organize reminder list` can show what failed.",
        f"{REMINDER_DAYS} days after it was due.",
        "Deleted by the bot then.",
        expiry=ended_reminders,
        scope=WORK,
    ),
    Kind(
        "jobs",
        "Job records",
        "One row per background job: its next run, and the lease of the run in progress.",
        "So each job runs once, however many processes the bot has.",
        f"While the job exists; {JOB_DAYS} days after its last run once no process runs it.",
        "Deleted by the bot then.",
        expiry=idle_jobs,
        scope=WORK,
    ),
    Kind(
        "claims",
        "Claims",
        "Which process is doing a piece of shared work (a session's Discord event, a series' weeks), "
        "and until when.",
        "So two processes never do the same work twice.",
        f"Until the work is done; at most {CLAIM_DAYS} day after the claim expired.",
        "Deleted by the bot then.",
        expiry=expired_claims,
        scope=WORK,
    ),
    Kind(
        "searches",
        "Saved searches",
        "The words of a `/reading search`, without who searched.",
        "So its ◀ ▶ page buttons still work after a restart.",
        f"{SEARCH_DAYS} days after it was last searched for.",
        "Deleted by the bot then.",
        expiry=old_searches,
        scope=WORK,
    ),
    Kind(
        "logs",
        "Log lines",
        "Each command's outcome and each send, with server, member and message ids; never what anyone "
        "typed or a message's text.",
        "To find and fix faults.",
        "Not in the store: as long as the bot's operator keeps logs.",
        "Ask the bot's operator.",
        scope=WORK,
    ),
)

MEMBER_KINDS: Final = tuple(kind for kind in KINDS if kind.member)
EXPIRIES: Final = tuple(kind.expiry for kind in KINDS if kind.expiry is not None)
