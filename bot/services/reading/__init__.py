"""Reading: the club's history and named lists (`lists`), full-text search (`search`), exports (`exports`),
and the programme file of `paperclub import/export`: its document schema (`document`), writing it into
and reading it out of the store (`programme`), and the files themselves (`files`)."""
