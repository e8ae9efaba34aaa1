"""Paper suggestions: the actions (`flows`, on a `context`), storing one (`submit`), the other writes and the
checked draft (`actions`), duplicates (`duplicates`), votes (`votes`), polls (`polls`), lookups (`queries`)."""
