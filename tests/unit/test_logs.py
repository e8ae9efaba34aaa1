from __future__ import annotations

import io
import logging

from bot.logs import REDACTED, setup_logging

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"


def test_token_is_redacted_everywhere() -> None:
    setup_logging("DEBUG", secrets=[TOKEN])
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    for existing in root.handlers:
        for f in existing.filters:
            handler.addFilter(f)
    root.addHandler(handler)
    try:
        log = logging.getLogger("test.redact")
        log.info("token is %s", TOKEN)
        log.warning("Authorization: Bot " + TOKEN)
        try:
            raise RuntimeError(f"login failed with {TOKEN}")
        except RuntimeError:
            log.exception("boom")
        log.info(
            "an unknown token-shaped string %s", "NzkyNzE1NDU0MTk2MDg4ODQy.X-hvzA.Ovy4MCQywSkoMRRclStW4xAYK7I"
        )
    finally:
        root.removeHandler(handler)
    output = stream.getvalue()
    assert TOKEN not in output
    assert "Ovy4MCQywSkoMRRclStW4xAYK7I" not in output
    assert output.count(REDACTED) >= 4
    assert "RuntimeError" in output
