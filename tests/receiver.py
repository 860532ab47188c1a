"""``Receiver``: a real HTTP server for webhook deliveries, on a free loopback port, that
writes down each request and answers as a test scripts it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from standardwebhooks import Webhook


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: str

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    def verified(self, secret: str) -> Any:
        """The payload, once ``standardwebhooks`` has checked its signature (raises if not)."""
        return Webhook(secret).verify(self.body, self.headers)


@dataclass
class Receiver:
    """``answers``: the status of each request in turn, then ``then``; ``hold``: a request
    waits until it is set (a receiver that does not answer)."""

    answers: list[int] = field(default_factory=list)
    then: int = 200
    headers: dict[str, str] = field(default_factory=dict)  # sent with every answer
    hold: threading.Event | None = None
    received: list[Received] = field(default_factory=list)
    holding: int = 0  # requests waiting on ``hold`` now

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length).decode()
                status = receiver._note(Received(self.path, dict(self.headers.items()), body))
                if receiver.hold is not None:
                    with receiver._lock:
                        receiver.holding += 1
                    receiver.hold.wait(30)
                    with receiver._lock:
                        receiver.holding -= 1
                self.send_response(status)
                for name, value in receiver.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _note(self, request: Received) -> int:
        with self._lock:
            self.received.append(request)
            return self.answers.pop(0) if self.answers else self.then

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/hooks"

    def wait_for(self, done: Callable[[list[Received]], bool], timeout_s: float = 20,
                 pump: Callable[[], object] = lambda: None) -> list[Received]:
        """Until ``done(received)``, calling ``pump`` meanwhile (a relay to drain)."""
        deadline = time.monotonic() + timeout_s
        while True:
            pump()
            with self._lock:
                seen = list(self.received)
            if done(seen):
                return seen
            if time.monotonic() > deadline:
                raise AssertionError(f"the receiver got {len(seen)} request(s): "
                                     f"{[r.body[:120] for r in seen]}")
            time.sleep(0.05)

    def close(self) -> None:
        if self.hold is not None:
            self.hold.set()
        self._server.shutdown()
        self._server.server_close()
