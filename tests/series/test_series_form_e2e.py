"""/series add without options opens a form: the day a select of the weekdays, every other week a
checkbox; each day and both cadences submitted, a forged day and half the options refused."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.demo.botenv import BotEnv
from bot.timeutil import WEEKDAYS
from db.models.series import Series
from tests.series.helpers import settle

LABEL, TEXT_INPUT, STRING_SELECT, CHECKBOX = 18, 4, 3, 23


async def _series(env: BotEnv) -> list[Series]:
    async with env.bot.session_factory() as session:
        return list((await session.scalars(select(Series).order_by(Series.id))).all())


async def test_the_form_and_each_day_and_cadence(discord_env: BotEnv) -> None:
    env = discord_env
    await (await env.invoke("setup series_horizon", {"weeks": 2}, member=env.admin)).final()  # 7 series fit
    opened = await (await env.invoke("series add", {}, member=env.organizer)).response()
    modal = opened.modal
    assert modal is not None
    assert [c["type"] for c in modal["components"]] == [LABEL] * 5
    kinds = {c["component"]["custom_id"]: c["component"]["type"] for c in modal["components"]}
    assert kinds == {
        "name": TEXT_INPUT,
        "day": STRING_SELECT,
        "time": TEXT_INPUT,
        "first": TEXT_INPUT,
        "every_other_week": CHECKBOX,
    }
    day = next(c["component"] for c in modal["components"] if c["component"]["custom_id"] == "day")
    assert [o["value"] for o in day["options"]] == list(WEEKDAYS)
    for i, weekday in enumerate(WEEKDAYS):
        opened = await (await env.invoke("series add", {}, member=env.organizer)).response()
        values = {
            "name": f"Club {weekday}",
            "day": [weekday],
            "time": "9:30am",
            "every_other_week": i % 2 == 1,
        }
        reply = await (await env.submit_modal(opened, values)).final()
        await settle(env)
        assert reply.text.startswith("Added series #"), reply.text
    rows = await _series(env)
    assert [(r.name, r.weekday, r.interval) for r in rows] == [
        (f"Club {w}", i, 2 if i % 2 else 1) for i, w in enumerate(WEEKDAYS)
    ]


async def test_refusals(discord_env: BotEnv) -> None:
    env = discord_env
    # a member is refused before any form opens
    refused = await (await env.invoke("series add", {}, member=env.member)).response()
    assert refused.modal is None
    assert "Only organizers" in refused.content
    # some of name, day and time but not all
    half = await (await env.invoke("series add", {"name": "Half"}, member=env.organizer)).response()
    assert half.ephemeral
    assert "or none of them for a form" in half.content
    # a day no client offers
    opened = await (await env.invoke("series add", {}, member=env.organizer)).response()
    values = {"name": "Forged", "day": ["someday"], "time": "9:30am"}
    answer = await (await env.submit_modal(opened, values, forged=True)).final()
    assert answer.ephemeral
    assert "day of the week" in answer.content or "weekday" in answer.content, answer.content
    async with env.bot.session_factory() as session:
        assert await session.scalar(select(func.count()).select_from(Series)) == 0
