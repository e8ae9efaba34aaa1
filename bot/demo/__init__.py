"""Our bot inside the local Discord stand-in (the only importer of `standin` outside tests and benches)."""
