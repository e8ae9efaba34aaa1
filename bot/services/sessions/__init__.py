"""Sessions: checked drafts, plain values, the store and queries, and the flows over a `context`."""
