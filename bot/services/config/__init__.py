"""A server's club settings, read by every feature (it imports none)."""
