"""Messages as readable plain text (for the ``paperclub demo`` tour and for test failure output).

#announcements  PaperClub (bot):
  Next session: Attention Is All You Need
  ┌ Session #3 ─────────────
  │ When: Thu 5 Nov 18:00
  └─────────────────────────  [ Sign up ↗ ] [ Remind me ]
"""

from __future__ import annotations

import datetime as dt
import re
import textwrap

from standin.state import DM, Json, Message, State

WIDTH = 72
BUTTON_STYLES = {1: "", 2: "", 3: "✓ ", 4: "✗ ", 5: "", 6: "★ "}
TIMESTAMP = re.compile(r"<t:(-?\d+)(?::([tTdDfFR]))?>")
MENTION = re.compile(r"<(@!?|@&|#)(\d+)>")


def _timestamp(match: re.Match[str]) -> str:
    moment = dt.datetime.fromtimestamp(int(match.group(1)), dt.UTC)
    style = match.group(2) or "f"
    if style == "R":
        return f"{moment:%Y-%m-%d %H:%M} UTC (relative)"
    if style in "tT":
        return f"{moment:%H:%M} UTC"
    if style in "dD":
        return f"{moment:%Y-%m-%d}"
    return f"{moment:%a %d %b %Y %H:%M} UTC"


def humanize(text: str, state: State | None) -> str:
    """Replace ``<@id>``, ``<@&id>``, ``<#id>`` and ``<t:…>`` markup with readable names and times."""
    text = TIMESTAMP.sub(_timestamp, text)
    if state is None:
        return text

    def name(match: re.Match[str]) -> str:
        kind, ident = match.group(1), int(match.group(2))
        if kind == "#":
            channel = state.channels.get(ident)
            return f"#{channel.name}" if channel and channel.name else match.group(0)
        if kind == "@&":
            for guild in state.guilds.values():
                if ident in guild.roles:
                    return f"@{guild.roles[ident].name}"
            return match.group(0)
        user = state.users.get(ident)
        return f"@{user.display_name}" if user else match.group(0)

    return MENTION.sub(name, text)


def _wrap(text: str, width: int, prefix: str = "") -> list[str]:
    lines: list[str] = []
    for raw in text.splitlines() or [""]:
        lines.extend(textwrap.wrap(raw, width - len(prefix)) or [""])
    return [prefix + line for line in lines]


def render_embed(embed: Json, state: State | None = None, width: int = WIDTH) -> list[str]:
    """Draw an embed as boxed text lines."""
    inner = width - 4
    title = humanize(str(embed.get("title") or ""), state)
    head = f"┌ {title} " if title else "┌"
    lines = [head + "─" * max(2, width - len(head))]
    body: list[str] = []
    if embed.get("author"):
        body.append(str(embed["author"].get("name") or ""))
    if embed.get("url"):
        body.append(str(embed["url"]))
    if embed.get("description"):
        body.extend(_wrap(humanize(str(embed["description"]), state), inner))
    for fld in embed.get("fields") or []:
        name = humanize(str(fld.get("name") or ""), state)
        value = humanize(str(fld.get("value") or ""), state)
        body.extend(_wrap(f"{name}: {value}", inner))
    if embed.get("image"):
        body.append(f"[image {embed['image'].get('url', '')}]")
    footer = (embed.get("footer") or {}).get("text")
    if footer:
        body.append(f"— {humanize(str(footer), state)}")
    if embed.get("timestamp"):
        body.append(f"({embed['timestamp']})")
    lines.extend("│ " + line for line in body)
    lines.append("└" + "─" * (width - 1))
    return lines


def _button(comp: Json) -> str:
    label = comp.get("label") or (comp.get("emoji") or {}).get("name") or comp.get("custom_id") or "?"
    mark = " ↗" if comp.get("style") == 5 else ""
    disabled = " (disabled)" if comp.get("disabled") else ""
    return f"[ {BUTTON_STYLES.get(int(comp.get('style') or 1), '')}{label}{mark} ]{disabled}"


def _select(comp: Json) -> str:
    placeholder = comp.get("placeholder") or "choose"
    options = comp.get("options") or []
    shown = ", ".join(str(o.get("label")) for o in options[:10])
    more = f", … (+{len(options) - 10})" if len(options) > 10 else ""
    kinds = {5: "users", 6: "roles", 7: "users/roles", 8: "channels"}
    listing = f" {{{shown}{more}}}" if options else f" ({kinds.get(int(comp['type']), 'options')})"
    return f"[ {placeholder} ▾ ]{listing}"


HEADING = re.compile(r"^(#{1,3}) (.+)$")
SUBTEXT = re.compile(r"^-# (.+)$")


def _markdown(text: str, state: State | None, width: int) -> list[str]:
    """A Text Display as a member reads it: ``#``/``##``/``###`` headings set apart (underlined, or marked),
    ``-#`` subtext in brackets, the rest wrapped with its inline markdown as typed."""
    lines: list[str] = []
    for raw in humanize(text, state).splitlines() or [""]:
        heading, subtext = HEADING.match(raw), SUBTEXT.match(raw)
        if heading and len(heading.group(1)) < 3:
            title = _wrap(heading.group(2), width)
            rule = "═" if len(heading.group(1)) == 1 else "─"
            lines.extend([*title, rule * min(width, max(len(t) for t in title))])
        elif heading:
            lines.extend(_wrap("▸ " + heading.group(2), width))
        elif subtext:
            lines.extend(_wrap(f"({subtext.group(1)})", width))
        else:
            lines.extend(_wrap(raw, width))
    return lines


def _media(item: Json) -> str:
    url = (item.get("media") or {}).get("url", "")
    alt = f" — {item['description']}" if item.get("description") else ""
    return f"[image: {url}]{alt}" + (" (spoiler)" if item.get("spoiler") else "")


def _section(comp: Json, state: State | None, width: int) -> list[str]:
    """Text on the left, the accessory (a button or a thumbnail) beside its first line."""
    accessory = comp.get("accessory") or {}
    tag = _button(accessory) if accessory.get("type") == 2 else _media(accessory)
    beside = len(tag) <= width // 2
    text: list[str] = []
    for child in comp.get("components") or []:
        text.extend(
            _markdown(str(child.get("content") or ""), state, width - (len(tag) + 2 if beside else 0))
        )
    if not beside:
        return [*text, "  ↳ " + tag]
    first = text[0] if text else ""
    return [first.ljust(width - len(tag)) + tag, *text[1:]]


def _separator(comp: Json, width: int) -> list[str]:
    """Separator: a divider line (unless ``divider`` is false) with small or (``spacing`` 2) large padding."""
    large = comp.get("spacing") == 2
    if comp.get("divider", True) is False:
        return [""] * (2 if large else 1)
    return ["", "─" * width, ""] if large else ["─" * width]


def _container(comp: Json, state: State | None, width: int) -> list[str]:
    accent = comp.get("accent_color")
    head = f"┌─ ■ #{int(accent):06X} " if accent is not None else "┌"
    head += "(spoiler) " if comp.get("spoiler") else ""
    inner = render_components(list(comp.get("components") or []), state, width - 2)
    return [head + "─" * max(2, width - len(head)), *("│ " + line for line in inner), "└" + "─" * (width - 1)]


def render_components(components: list[Json], state: State | None = None, width: int = WIDTH) -> list[str]:
    """Rows of buttons and selects (classic), or a Components V2 layout: text displays with their headings,
    sections with the accessory beside the text, separators, containers (accent colour shown), media."""
    lines: list[str] = []
    for comp in components:
        ctype = comp.get("type")
        if ctype == 1:
            children = comp.get("components") or []
            buttons = [_button(c) for c in children if c.get("type") == 2]
            if buttons:
                lines.append(" ".join(buttons))
            lines.extend(_select(c) for c in children if c.get("type") != 2)
        elif ctype == 2:
            lines.append(_button(comp))
        elif ctype in (3, 5, 6, 7, 8):
            lines.append(_select(comp))
        elif ctype == 10:
            lines.extend(_markdown(str(comp.get("content") or ""), state, width))
        elif ctype == 9:
            lines.extend(_section(comp, state, width))
        elif ctype == 17:
            lines.extend(_container(comp, state, width))
        elif ctype == 14:
            lines.extend(_separator(comp, width))
        elif ctype == 11:
            lines.append(_media(comp))
        elif ctype == 12:
            lines.extend(_media(item) for item in comp.get("items") or [])
        elif ctype == 13:
            name = str((comp.get("file") or {}).get("url", "file")).removeprefix("attachment://")
            lines.append(f"📎 {name}")
    return lines


# -- modals -----------------------------------------------------------------------------------------------
def _field(comp: Json, label: str = "") -> list[str]:
    """One input of a modal as the member sees it, pre-filled values and default choices shown."""
    ctype = comp.get("type")
    options = comp.get("options") or []
    if ctype == 4:
        shown = comp.get("value") or comp.get("placeholder") or ""
        box = "[ " + (str(shown)[:40] + ("…" if len(str(shown)) > 40 else "")).ljust(30) + " ]"
        return [box + (" ¶" if comp.get("style") == 2 else "")]
    if ctype == 21:
        return ["  ".join(("(•) " if o.get("default") else "( ) ") + str(o.get("label")) for o in options)]
    if ctype == 22:
        return ["  ".join(("[x] " if o.get("default") else "[ ] ") + str(o.get("label")) for o in options)]
    if ctype == 23:
        return [("[x] " if comp.get("default") else "[ ] ") + label]
    if ctype == 19:
        most = comp.get("max_values") or 1
        kinds = f" ({', '.join(comp['file_types'])})" if comp.get("file_types") else ""
        return [f"[ 📎 upload up to {most} file{'s' if most != 1 else ''}{kinds} ]"]
    return [_select(comp)]


def render_modal(modal: Json, state: State | None = None, width: int = WIDTH) -> str:
    """A modal (the ``data`` of a type-9 response) as the member sees it: its title, each Label with its
    description under it and its input, required fields starred, text displays as text."""
    title = f"┌ [form] {modal.get('title') or ''} "
    lines = [title + "─" * max(2, width - len(title))]
    body: list[str] = []
    for top in modal.get("components") or []:
        ctype = top.get("type")
        fields: list[tuple[str, str | None, Json]] = []
        if ctype == 18 and isinstance(top.get("component"), dict):
            fields = [(str(top.get("label") or ""), top.get("description"), top["component"])]
        elif ctype == 1:
            fields = [(str(c.get("label") or ""), None, c) for c in top.get("components") or []]
        elif ctype == 10:
            body.extend(_markdown(str(top.get("content") or ""), state, width - 2))
        for label, description, comp in fields:
            required = comp.get("type") != 23 and comp.get("required", True) is not False
            if comp.get("type") != 23:
                body.append(label + (" *" if required else ""))
            if description:
                body.extend(_wrap(str(description), width - 4, "  "))
            body.extend("  " + line for line in _field(comp, label))
    lines.extend("│ " + line for line in body)
    lines.append("└" + "─" * (width - 1))
    return "\n".join(lines)


def render_poll(poll: Json) -> list[str]:
    """Draw a poll with its answers and vote counts as text lines."""
    counts = {int(c["id"]): int(c["count"]) for c in (poll.get("results") or {}).get("answer_counts") or []}
    final = " (final)" if (poll.get("results") or {}).get("is_finalized") else ""
    lines = [f"📊 {(poll.get('question') or {}).get('text')}{final}"]
    for answer in poll.get("answers") or []:
        aid = int(answer["answer_id"])
        lines.append(
            f"   {aid}. {(answer.get('poll_media') or {}).get('text')}  ({counts.get(aid, 0)} votes)"
        )
    return lines


def render_message(message: Message, state: State | None = None, *, width: int = WIDTH) -> str:
    """One message: header line (channel, author, flags) then indented content, embeds, components, files."""
    payload = message.payload
    author = payload.get("author") or {}
    who = str(author.get("global_name") or author.get("username") or "?") + (
        " (bot)" if author.get("bot") else ""
    )
    where = ""
    if state is not None:
        channel = state.channels.get(message.channel_id)
        if channel is not None and channel.type == DM:
            where = f"DM @{channel.recipients[0].display_name}  " if channel.recipients else "DM  "
        elif channel is not None:
            where = f"#{channel.name}  "
    tags = [
        t
        for t, on in (("ephemeral", message.ephemeral), ("edited", bool(payload.get("edited_timestamp"))))
        if on
    ]

    lines = [f"{where}{who}{' [' + ', '.join(tags) + ']' if tags else ''}:"]
    body: list[str] = []
    if message.content:
        body.extend(_wrap(humanize(message.content, state), width - 2))
    for embed in message.embeds:
        body.extend(render_embed(embed, state, width - 2))
    body.extend(render_components(message.components, state, width - 2))
    if message.poll:
        body.extend(render_poll(message.poll))
    # Component Reference: with IS_COMPONENTS_V2 "Attachments won't show by default - they must be exposed
    # through components" (a File, a Media Gallery or a Thumbnail shows them where it stands).
    for attachment in [] if message.is_components_v2 else message.attachments:
        body.append(f"📎 {attachment['filename']} ({attachment.get('size', 0)} bytes)")
    if isinstance(payload.get("thread"), dict):
        body.append(f"🧵 thread: {payload['thread'].get('name')}")
    lines.extend("  " + line for line in body)
    return "\n".join(lines)


def render_channel(
    state: State, channel_id: int, *, include_ephemeral: bool = False, width: int = WIDTH
) -> str:
    """Draw a channel's messages as text."""
    messages = state.messages_in(channel_id, include_ephemeral=include_ephemeral)
    return "\n\n".join(render_message(m, state, width=width) for m in messages)
