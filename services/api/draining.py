"""Whether this API worker is stopping: gunicorn's master sends it SIGTERM (a deploy, a
scale-down), and it stops taking connections and waits up to its graceful timeout for
the requests under way. Event streams and long polls would hold it all that time, then
be cut off; instead they end at once (a stream closes, a long poll answers what it has),
and their clients reconnect, through the load balancer, to another process."""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

stopping = threading.Event()  # (a gevent Event in a gevent worker: it patches threading)


def drain_on_sigterm(worker: Any = None) -> None:
    """From gunicorn's ``post_worker_init``, after the worker's own signal handlers:
    SIGTERM sets ``stopping`` too, then does what it did."""
    previous = signal.getsignal(signal.SIGTERM)

    def handle(signum: int, frame: FrameType | None) -> None:
        stopping.set()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, handle)
