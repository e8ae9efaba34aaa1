"""Sessions: rules and drafts, plain values, the store and queries, and the flows (`publish`, `events`,
`posts`, `reads`) over a `context`."""
