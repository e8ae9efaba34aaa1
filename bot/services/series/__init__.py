"""Series: rules and drafts, plain values, the store and the weeks, the changes, publishing and the background."""
