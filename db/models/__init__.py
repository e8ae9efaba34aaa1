"""All models. The foundation's are re-exported here; each feature keeps its own module
(`db/models/<feature>.py`), which :func:`load_all` imports so Base.metadata knows every table."""

import importlib
import pkgutil

from db.models.core import AppState, GuildSettings
from db.models.sessions import ClubSession, Paper, SessionPaper, SessionSubscription

__all__ = [
    "AppState",
    "ClubSession",
    "GuildSettings",
    "Paper",
    "SessionPaper",
    "SessionSubscription",
    "load_all",
]


def load_all() -> None:
    """Import every module in this package (feature models register their tables on import)."""
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


load_all()
