"""Reminders: asked for, planned, due, sent once, and their text."""
