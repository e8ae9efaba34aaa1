"""Our bot inside the local Discord stand-in (`standin/`): the bot environment tests and benches drive
(`botenv`), connecting a client to a stand-in (`running`), and `paperclub demo` with its tours.

This package is the only importer of `standin` outside tests and benches."""
