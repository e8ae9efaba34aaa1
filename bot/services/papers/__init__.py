"""Papers in the store, shared by every feature (`store`), and their arXiv metadata (`metadata`)."""
