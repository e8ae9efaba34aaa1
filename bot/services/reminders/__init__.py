"""Reminders: each action (`actions`), asked for (`requested`), planned (`plan`), due (`queue`), sent once
(`delivery`, `runner`), their text (`texts`) and lookups (`queries`)."""
