"""The bot's small web server on ``WEB_HOST``, off unless ``WEB_PORT`` is set; features add routes."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from aiohttp import web

log = logging.getLogger("paperclub.web")


class WebServer:
    """Collects routes from features, then serves them on ``host:port``."""

    def __init__(self, host: str, port: int, *, public_url: str | None = None) -> None:
        self.host = host
        self.port = port
        self._public_url = public_url.rstrip("/") if public_url else None
        self.app = web.Application()
        self._runner: web.AppRunner | None = None

    @property
    def started(self) -> bool:
        """Whether the server is serving."""
        return self._runner is not None

    def add_routes(self, routes: Iterable[web.AbstractRouteDef]) -> None:
        """Add a feature's routes; only before the server starts (aiohttp freezes the router then)."""
        if self.started:
            raise RuntimeError("routes must be added before the web server starts (in cog_load)")
        self.app.add_routes(routes)

    @property
    def bound_port(self) -> int:
        """The port actually listened on (differs from ``port`` when that was 0: any free port)."""
        addresses = self._runner.addresses if self._runner is not None else []
        ports = [int(address[1]) for address in addresses if isinstance(address, tuple) and len(address) >= 2]
        return ports[0] if ports else self.port

    @property
    def public_url(self) -> str:
        """``PUBLIC_URL``, or (unset) this server's own address."""
        return self._public_url or f"http://{self.host}:{self.bound_port}"

    async def start(self) -> None:
        """Start serving (once)."""
        if self.started:
            return
        runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        log.info(
            "web server listening on %s:%d (public address %s)", self.host, self.bound_port, self.public_url
        )

    async def stop(self) -> None:
        """Stop serving."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
