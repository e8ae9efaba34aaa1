"""The reminders runtime: the runner that plans timers from the store and the transport that sends."""

from bot.reminders.runner import ReminderRunner, RunnerConfig
from bot.reminders.transport import DiscordTransport, SendError, Transport

__all__ = ["DiscordTransport", "ReminderRunner", "RunnerConfig", "SendError", "Transport"]
