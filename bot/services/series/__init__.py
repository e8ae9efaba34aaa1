"""Series: rules and drafts, plain values, the store, the nudges and the horizon, and the flows (`actions`,
`reads`, `publishing`, `background`) over a `context`."""
