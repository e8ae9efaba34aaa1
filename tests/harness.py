"""End-to-end fixtures (the local Discord stand-in and the bot). Filled in by the stand-in work."""
