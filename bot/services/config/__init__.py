"""A server's club settings (`guild`: `GuildConfig`, `get_config`, `update_config`), read by every feature;
it imports none."""
