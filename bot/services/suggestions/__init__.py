"""Paper suggestions: submit, vote, volunteer, review, withdraw (`actions`), duplicates (`duplicates`),
arXiv metadata on suggested papers (`metadata`), polls (`polls`), lookups (`queries`)."""
