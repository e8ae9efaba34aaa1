"""A server's club settings (`config`): read with defaults, validate and change."""
