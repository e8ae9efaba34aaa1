"""Paper suggestions: the actions (`flows`, on a `context`), the checked draft and writes (`actions`),
duplicates (`duplicates`), votes (`votes`), polls (`polls`), lookups (`queries`)."""
