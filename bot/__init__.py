"""paperclub: a Discord bot for a weekly research paper club."""

__version__ = "0.1.0"
