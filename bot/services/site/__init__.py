"""The club's public website (issue #13): per-guild opt-in and address (`config`), members' secret feeds
(`tokens`), page data from the store as plain values (`pages`), HTML from Jinja2 templates (`render`,
`templates/`, `static/`), the "How it runs" Markdown (`markdown`), recording embeds (`embeds`), the calendar
and Atom feeds (`feeds`), the aiohttp handlers (`web`) and the static build (`build`)."""
