"""The programme file of `paperclub import/export` (settings, sessions, series, reading lists): its schema
and validation (`document`), the series' part of it (`series`), writing it into and reading it out of the
store (`store`), and the YAML/JSON files themselves (`files`)."""
