"""Reading: the club's history and named lists (`lists`), full-text search (`search`, `terms`, `statements`,
`hits`), autocomplete (`autocomplete`), saved queries (`saved_queries`) and exports (`exports`)."""
