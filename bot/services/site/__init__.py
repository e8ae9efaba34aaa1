"""The club's public website: settings, pages, HTML, feeds, handlers, the static build and actions."""
