"""The club's public website: settings (`config`), page data (`pages`), HTML (`render`), feeds, the aiohttp
handlers (`web`), the static build (`build`), and the flows Discord calls (`actions`)."""
