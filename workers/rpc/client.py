"""The client the service uses to ask an AI engine for a decision.

Engines are named in configuration only (``name=host:port`` pairs, see
``parse_engines``; ``name=tls://host:port`` for one called over TLS): the built-in levels and any third-party bot speaking
``president.ai.v1``. A caller names an engine; no address ever comes from a client
of the game service. And the answer is never trusted: it must parse and be one of
the legal actions that were sent.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from pathlib import Path
from typing import Mapping

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine.observe import View
from engine.plays import Action
from president.ai.v1 import ai_pb2, ai_pb2_grpc
from config.settings import setting
from workers.ai import LEVELS
from workers.ai.budget import Budget
from workers.ai.search import Weighed
from workers.rpc.serde import candidates_from_proto, request_to_proto, response_from_proto

DEFAULT_TARGET = "127.0.0.1:50051"
TLS = "tls://"  # an engine's target that starts so is called over TLS
DEFAULT_ENGINES = {level: DEFAULT_TARGET for level in LEVELS}
# A call a server dropped without running it is sent again, by gRPC itself: the server is
# stopping (a deploy) or an AI worker process is being replaced, and gRPC answers
# CANCELLED for the calls it had taken in but not started (grpc/grpc#41785), UNAVAILABLE
# for those it refused. A decision depends on its request alone: asking twice is harmless.
# A retiring process also resets the connections still waiting in its listening socket's
# queue when it closes it; the channel then waits its reconnect backoff before connecting
# again (to the process that replaced it), and the retries (each after a random wait of
# up to its backoff) must outlast that wait: 20 ms against 0.05 + 0.1 + 0.2 + 0.4 s, a
# short window still, as a worker that is down is reported after it.
ATTEMPTS = 5  # a call's, at most (gRPC's own ceiling)
CHANNEL_OPTIONS = [
    ("grpc.use_local_subchannel_pool", 1),  # a connection each
    ("grpc.initial_reconnect_backoff_ms", 20),  # (1 s by default)
    ("grpc.service_config", json.dumps({"methodConfig": [{
        "name": [{"service": ai_pb2.DESCRIPTOR.services_by_name["AiService"].full_name}],
        "retryPolicy": {"maxAttempts": ATTEMPTS, "initialBackoff": "0.05s", "maxBackoff": "0.4s",
                        "backoffMultiplier": 2,
                        "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"]}}]})),
]


class AiError(Exception):
    """An AI engine could not give a usable answer."""


class UnknownEngine(AiError, ValueError):
    """No engine of that name is configured."""


class AiUnavailable(AiError):
    """The engine could not be reached or failed (worth a retry)."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class UntrustedAnswer(AiError):
    """The engine answered with something that is not one of the legal actions."""


def parse_engines(text: str) -> dict[str, str]:
    """``"easy=127.0.0.1:50051,mybot=bots.internal:6000"`` → {name: target}."""
    engines: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, target = item.partition("=")
        if not sep or not name.strip() or not target.strip():
            raise ValueError(f"engine entries are name=host:port, not {item!r}")
        engines[name.strip()] = target.strip()
    return engines


ENGINES_ENV = "PRESIDENT_AI_ENGINES"


def tls_roots_from_env(environ: Mapping[str, str] | None = None) -> bytes | None:
    """The PEM certificates that ``tls://`` engines are checked against (None: the
    system's), from ``PRESIDENT_AI_TLS_ROOTS``."""
    path = setting("PRESIDENT_AI_TLS_ROOTS", environ)
    return None if path is None else Path(path).read_bytes()


def engines_from_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The engines configured in ``PRESIDENT_AI_ENGINES``; by default the four levels on
    the local worker. Entries given there add to or replace the defaults."""
    return {**DEFAULT_ENGINES, **parse_engines(setting(ENGINES_ENV, environ) or "")}


class AiClient:
    """A few connections per configured target, shared by threads and used in turn.

    A worker serves one port from several processes (SO_REUSEPORT) and the kernel gives
    each connection to one process: a single connection would keep every call of this
    client on one process, so each target gets ``connections`` of its own."""

    def __init__(self, engines: Mapping[str, str] | None = None, connections: int = 4,
                 tls_roots: bytes | None = None) -> None:
        """``engines``: name → ``host:port``, or ``tls://host:port`` for an engine called
        over TLS, checked against ``tls_roots`` (PEM; None: the system's)."""
        self.engines = dict(DEFAULT_ENGINES if engines is None else engines)
        self._tls_roots = tls_roots
        self._connections = connections
        self._stubs: dict[str, list[ai_pb2_grpc.AiServiceStub]] = {}
        self._turn = itertools.count()
        self._channels: list[grpc.Channel] = []
        self._lock = threading.Lock()

    def _stub(self, engine: str) -> ai_pb2_grpc.AiServiceStub:
        target = self.engines.get(engine)
        if target is None:
            raise UnknownEngine(f"no AI engine named {engine!r}; configured: "
                                f"{', '.join(sorted(self.engines)) or 'none'}")
        with self._lock:
            stubs = self._stubs.get(target)
            if stubs is None:
                channels = [self._channel(target) for _ in range(self._connections)]
                self._channels.extend(channels)
                stubs = self._stubs[target] = [ai_pb2_grpc.AiServiceStub(c) for c in channels]
            return stubs[next(self._turn) % len(stubs)]

    def _channel(self, target: str) -> grpc.Channel:
        if target.startswith(TLS):
            credentials = grpc.ssl_channel_credentials(root_certificates=self._tls_roots)
            return grpc.secure_channel(target.removeprefix(TLS), credentials,
                                       options=CHANNEL_OPTIONS)
        return grpc.insecure_channel(target, options=CHANNEL_OPTIONS)

    def decide(self, view: View, engine: str, *, seed: int = 0, budget: Budget | None = None,
               timeout_s: float = 5.0) -> Action:
        """Ask ``engine`` for the seat's action; it is checked against the legal actions."""
        return self._ask(view, engine, seed, budget, timeout_s, explain=False)[0]

    def analyse(self, view: View, engine: str, *, seed: int = 0,
                budget: Budget | None = None, timeout_s: float = 5.0,
                also: Action | None = None) -> tuple[Action, tuple[Weighed, ...]]:
        """``decide``, and the candidates the engine says it weighed (each checked to be
        a legal action, with points a number), ``also`` among them."""
        return self._ask(view, engine, seed, budget, timeout_s, explain=True, also=also)

    def _ask(self, view: View, engine: str, seed: int, budget: Budget | None, timeout_s: float,
             explain: bool, also: Action | None = None) -> tuple[Action, tuple[Weighed, ...]]:
        stub = self._stub(engine)
        try:
            response = stub.Decide(request_to_proto(view, engine, seed, budget, explain, also),
                                   timeout=timeout_s)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
            raise AiUnavailable(f"AI engine {engine!r} failed: {code}: {details}", code) from exc
        try:
            action = response_from_proto(response)
            weighed = candidates_from_proto(response) if explain else ()
        except ValueError as exc:
            raise UntrustedAnswer(f"AI engine {engine!r} answered {response.action!r}: {exc}") from exc
        for answered in (action, *(w.action for w in weighed)):
            if answered not in view.legal_actions:
                raise UntrustedAnswer(f"AI engine {engine!r} answered {answered}, not a legal "
                                      "action")
        return action, weighed

    def close(self) -> None:
        with self._lock:
            for channel in self._channels:
                channel.close()
            self._channels.clear()
            self._stubs.clear()

    def __enter__(self) -> AiClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def wait_serving(target: str, timeout_s: float = 30.0) -> None:
    """Return once the gRPC worker at ``target`` answers SERVING on its health service;
    ``grpc.RpcError`` if it does not within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.05)
