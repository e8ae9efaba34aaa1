"""/presenters through the stand-in (SQLite and PostgreSQL): who has presented (the imported club history
included), how often and when last, who presents next, and who offered to present suggested papers."""

from __future__ import annotations

from bot.services.programme.files import import_text
from tests.reading.conftest import CLUB_YAML
from tests.series.helpers import add_thursdays, configure, from_bot, is_ephemeral, press, run
from tests.suggestions.helpers import latest_suggestion_id, post_of, suggest, use_channel


async def test_presenters_lists_history_next_weeks_and_offers(env) -> None:
    await configure(env)
    sam, tom = env.members[:2]
    await import_text(env.bot.session_factory, CLUB_YAML.read_text(), suffix=".yaml", guild_id=env.guild.id)
    await add_thursdays(env)
    await run(env, "series open", {"series": "1"})
    board = from_bot(env, env.messages_in(env.announcements))[-1]
    await press(env, board, f"series:present:{board.buttons[1]['custom_id'].rsplit(':', 1)[1]}", sam)
    await use_channel(env)
    await suggest(env, env.members[2], paper="https://example.org/sims", title="User simulators at scale")
    suggestion = await latest_suggestion_id(env)
    await (
        await env.click(await post_of(env, suggestion), f"sugg:present:{suggestion}", member=tom)
    ).response()

    shown = await run(env, "presenters", member=env.members[2])
    assert is_ephemeral(shown)
    assert shown.text_displays[0] == "## Presenters"
    lines = shown.text_displays[1].split("\n")
    assert lines[0] == "**Who presents**"
    assert lines[1] == "Hamish Ivison — 1 time, last 5 November"  # from the imported programme
    assert lines[2].startswith(f"<@{sam.id}> — not yet, next <t:")  # 10 December, claimed
    assert lines[-2] == "**Offered to present (on suggestions)**"
    assert lines[-1] == f"<@{tom.id}> — “User simulators at scale” (suggestion #{suggestion})"
