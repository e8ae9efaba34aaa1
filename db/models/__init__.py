"""All models: the foundation's re-exported; every feature's module imported so Base.metadata has its tables."""

import importlib
import pkgutil

from db.models.core import AppState, GuildSettings
from db.models.sessions import ClubSession, Paper, SessionPaper, SessionSubscription

__all__ = ["AppState", "ClubSession", "GuildSettings", "Paper", "SessionPaper", "SessionSubscription"]

for _module in pkgutil.iter_modules(__path__):  # each feature's models register their tables on import
    importlib.import_module(f"{__name__}.{_module.name}")
