"""Reading: the club's history and named lists, full-text search, autocomplete and exports."""
