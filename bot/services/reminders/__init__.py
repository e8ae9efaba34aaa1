"""Reminders: the ones people ask for (`requested`), automatic ones planned from sessions (`plan`), finding
due work (`queue`), claiming and recording a send (`delivery`), their text (`texts`), lookups (`queries`),
and the runner that sends them once (`runner`; the Discord transport is `cogs/reminders/_transport.py`)."""
