"""Discord's limits as the stand-in enforces them (pure functions, no server)."""

from __future__ import annotations

import pytest

from standin.errors import ApiError
from standin.limits import check_commands, check_message
from standin.modals import check_modal


def test_limits_reject_bad_commands_and_bodies() -> None:
    def errors_of(call: object) -> str:
        with pytest.raises(ApiError) as info:
            call()  # type: ignore[operator]
        assert info.value.body["code"] in (50035, 50006)
        return str(info.value.body)

    sub = {"type": 1, "name": "show", "description": "d"}
    assert "APPLICATION_COMMAND_INVALID_NAME" in errors_of(
        lambda: check_commands([{"name": "Setup", "description": "d", "type": 1}])
    )
    assert "nested" in errors_of(
        lambda: check_commands(
            [
                {
                    "name": "a",
                    "description": "d",
                    "options": [
                        {
                            "type": 2,
                            "name": "g",
                            "description": "d",
                            "options": [{"type": 2, "name": "h", "description": "d", "options": [sub]}],
                        }
                    ],
                }
            ]
        )
    )
    assert "25 or fewer" in errors_of(
        lambda: check_commands(
            [
                {
                    "name": "a",
                    "description": "d",
                    "options": [{"type": 3, "name": f"o{i}", "description": "d"} for i in range(26)],
                }
            ]
        )
    )
    assert "Required options" in errors_of(
        lambda: check_commands(
            [
                {
                    "name": "a",
                    "description": "d",
                    "options": [
                        {"type": 3, "name": "x", "description": "d"},
                        {"type": 3, "name": "y", "description": "d", "required": True},
                    ],
                }
            ]
        )
    )
    check_commands(
        [
            {
                "name": "setup",
                "description": "d",
                "options": [
                    {"type": 2, "name": "group", "description": "d", "options": [sub]},
                    sub | {"name": "other"},
                ],
            }
        ]
    )
    assert "2000" in errors_of(lambda: check_message({"content": "x" * 2001}))
    assert "Cannot send an empty message" in errors_of(lambda: check_message({}))
    row = {
        "type": 1,
        "components": [{"type": 2, "style": 1, "custom_id": f"b{i}", "label": "x"} for i in range(6)],
    }
    assert "components" in errors_of(lambda: check_message({"content": "x", "components": [row]}))
    assert "45" in errors_of(
        lambda: check_modal(
            {
                "title": "t" * 46,
                "custom_id": "m",
                "components": [
                    {"type": 1, "components": [{"type": 4, "custom_id": "a", "label": "A", "style": 1}]}
                ],
            }
        )
    )
