"""``paperclub`` as the deployment tests run it: the real CLI, with the reminder runner's claim lease and
look-again interval shortened when the environment asks (``PAPERCLUB_TEST_LEASE_SECONDS``,
``PAPERCLUB_TEST_LOOK_AGAIN_SECONDS``), so a test that kills a process mid-send sees its claims recovered in
seconds instead of the production 90 s. Nothing else differs. Run as a script: ``python botproc.py run``."""

from __future__ import annotations

import os
from datetime import timedelta

from bot.cli import main
from bot.services.reminders import queue, runner

if "PAPERCLUB_TEST_LEASE_SECONDS" in os.environ:
    queue.SENDING_LEASE = timedelta(seconds=float(os.environ["PAPERCLUB_TEST_LEASE_SECONDS"]))
if "PAPERCLUB_TEST_LOOK_AGAIN_SECONDS" in os.environ:
    runner.LOOK_AGAIN = timedelta(seconds=float(os.environ["PAPERCLUB_TEST_LOOK_AGAIN_SECONDS"]))

raise SystemExit(main())
