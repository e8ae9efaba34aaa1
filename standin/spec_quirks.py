"""The known gaps and quirks of Discord's OpenAPI description, in one place, each with its reason.

Upstream calls the description a preview; where it disagrees with Discord's docs (or with what Discord
accepts from discord.py) the docs win. Each quirk is one narrow patch to the loaded copy (the vendored file is
never edited) that checks its target still looks as expected, so loading fails when a spec update moves it.
Sources: ``discord-api-docs:<file>`` (github.com/discord/discord-api-docs), ``discord.py:<file>`` (2.7).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]
UINT64_MAX = 2**64 - 1


class QuirkTargetChanged(RuntimeError):
    """A quirk's target no longer looks as the quirk expects: the spec changed; re-check the quirk."""


@dataclass(frozen=True)
class Quirk:
    """One known gap between Discord's OpenAPI description and what Discord does, and its patch."""

    name: str
    reason: str
    sources: tuple[str, ...]
    patch: Callable[[Json], None]


def schema(document: Json, name: str) -> Json:
    """The spec's ``components/schemas/<name>``, or QuirkTargetChanged when it is gone."""
    try:
        found: Json = document["components"]["schemas"][name]
    except KeyError as exc:
        raise QuirkTargetChanged(f"components/schemas/{name} is gone") from exc
    return found


def expect(condition: bool, quirk: str, what: str) -> None:
    """Raise QuirkTargetChanged unless ``condition`` holds."""
    if not condition:
        raise QuirkTargetChanged(f"quirk {quirk!r}: {what}; re-check it against the new spec")


# -- the patches -----------------------------------------------------------------------------------------
def _guild_media_channel_type(document: Json) -> None:
    channel_types = schema(document, "ChannelTypes")
    values = {branch.get("const") for branch in channel_types["oneOf"]}
    expect(16 not in values, "guild-media-channel-type", "ChannelTypes already lists 16")
    channel_types["oneOf"].append(
        {"title": "GUILD_MEDIA", "description": "Channel that can only contain threads", "const": 16}
    )


def _integer_snowflakes(document: Json) -> None:
    snowflake = schema(document, "SnowflakeType")
    expect(snowflake.get("type") == "string", "integer-snowflakes", "SnowflakeType is no longer a string")
    # A string still has to be digits (the pattern applies to strings only); an integer has to fit in 64
    # bits (minimum/maximum apply to numbers only). Path and query values stay strings, so only JSON
    # bodies gain anything.
    snowflake["type"] = ["string", "integer"]
    snowflake["minimum"] = 0
    snowflake["maximum"] = UINT64_MAX


QUIRKS: tuple[Quirk, ...] = (
    Quirk(
        "guild-media-channel-type",
        "ChannelTypes stops at 15 (GUILD_FORUM) and omits 16 (GUILD_MEDIA), which Discord documents and "
        "discord.py sends in a channel option's `channel_types` for any option typed as a forum channel "
        "(ForumChannel maps to [forum, media]) or as any guild channel.",
        (
            "discord-api-docs:developers/resources/channel.mdx (Channel Types: GUILD_MEDIA = 16)",
            "discord.py:discord/app_commands/transformers.py (CHANNEL_TO_TYPES: ForumChannel -> "
            "[ChannelType.forum, ChannelType.media]; GuildChannel includes media)",
        ),
        _guild_media_channel_type,
    ),
    Quirk(
        "integer-snowflakes",
        "SnowflakeType is a digit string, but Discord reads integer ids in request bodies as well "
        "(its docs: ids are stored as integers and serialised to strings on the way out; an upload's "
        "`attachments[].id` is the integer index n of `files[n]`), and discord.py sends integers in "
        "several places: allowed_mentions users/roles, message_reference message_id/channel_id, "
        "attachments[].id, a DM's recipient_id, a scheduled event's channel_id.",
        (
            "discord-api-docs:developers/reference.mdx (ID Serialization; Uploading Files: the index n "
            "of files[n] is the attachment's snowflake placeholder)",
            "discord.py:discord/mentions.py (AllowedMentions.to_dict: [x.id for x in self.users/roles])",
            "discord.py:discord/message.py (MessageReference.to_dict: message_id, channel_id as int)",
            "discord.py:discord/file.py (File.to_dict: 'id': index)",
            "discord.py:discord/http.py (start_private_message: {'recipient_id': user_id})",
            "discord.py:discord/scheduled_event.py, discord/guild.py (payload['channel_id'] = channel.id)",
        ),
        _integer_snowflakes,
    ),
)


@dataclass(frozen=True)
class Looser:
    """Where the spec allows more than Discord does: no patch (the spec stays as published), the rule is
    held by the hand-written limits in :mod:`standin.limits`, the second line behind the spec."""

    what: str
    held_by: (
        str  # the name that holds the rule: in standin.limits, or "module.NAME" in another standin module
    )
    sources: tuple[str, ...]


LOOSER_THAN_DISCORD: tuple[Looser, ...] = (
    Looser(
        "MessageCreateRequest.content has maxLength 4000 (a Nitro user's limit); a bot's message is "
        "2000 characters at most",
        "CONTENT_MAX",
        (
            "discord-api-docs:developers/resources/message.mdx (Create Message: content up to 2000 characters)",
        ),
    ),
    Looser(
        "the 6000-character total over all embeds of a message (titles, descriptions, fields, footer, "
        "author) cannot be said in JSON Schema",
        "EMBED_TOTAL_MAX",
        ("discord-api-docs:developers/resources/message.mdx (Embed Limits: combined sum of 6000)",),
    ),
    Looser(
        "a message's components may be layout components (Text Display, Section, Container, …) at the top "
        "level whatever its flags; without IS_COMPONENTS_V2 Discord takes action rows only, and with it no "
        "content, embeds, poll or stickers",
        "components.LEGACY_FIELDS",
        (
            "discord-api-docs:developers/resources/message.mdx (Create Message, flags: with IS_COMPONENTS_V2 "
            "the message can only contain components)",
            "discord-api-docs:developers/components/reference.mdx (each layout component: 'you must send "
            "the message flag 1 << 15 (IS_COMPONENTS_V2)'; Legacy Message Component Behavior)",
        ),
    ),
    Looser(
        "a Components V2 message has 40 components counted over the whole tree (nested ones included), "
        "and its Text Displays total 4000 characters; the description limits each list (maxItems 40) "
        "and each Text Display (maxLength 4000) on its own",
        "components.V2_COMPONENTS_MAX",
        (
            "discord-api-docs:developers/change-log.mdx (29 April 2025, Raised Component Limits: 40 total)",
            "discord-api-docs:pull/8562 (the text displays of a message may total up to 4000 characters)",
        ),
    ),
    Looser(
        "ModalInteractionCallbackRequestData.components has maxItems 40; a modal has 1 to 5",
        "modals.MODAL_COMPONENTS_MAX",
        (
            "discord-api-docs:developers/interactions/receiving-and-responding.mdx (Modal: between 1 and 5 "
            "(inclusive) components)",
        ),
    ),
)


def apply_all(document: Json) -> None:
    """Patch the spec with every quirk."""
    for quirk in QUIRKS:
        quirk.patch(document)
