"""All models: the foundation's re-exported; every feature's module imported so Base.metadata has its tables."""

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
