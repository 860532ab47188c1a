"""The gRPC AI worker's server: the servicer, and one server process of
``president ai-worker`` (its parent: ``workers.rpc.supervisor``). On SIGTERM a server
process stops accepting calls and lets those in flight finish."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import threading
from concurrent import futures
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable, Sequence

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from engine.observe import View
from engine.plays import Action
from president.ai.v1 import ai_pb2, ai_pb2_grpc
from config import tracing
from config.logs import configure_logging
from config.settings import defaulted
from workers.ai.budget import Budget
from workers.ai.levels import DEFAULT_BUDGETS, LEVELS, analyse, decide
from workers.ai.search import Weighed
from workers.rpc.serde import also_from_proto, request_from_proto, response_to_proto
from workers.rpc.validate import check_view

log = logging.getLogger("president.ai_worker")

SERVICE_NAME = ai_pb2.DESCRIPTOR.services_by_name["AiService"].full_name
# Kept back from the call's deadline for validating, answering and the network: a share
# of it (a busy machine stretches everything) and a fixed amount.
DEADLINE_SHARE, RESERVE_MS = 0.9, 3.0
# Easy and Normal need well under this; a searching level needs at least this to start.
MINIMUM_MS = 1.0
GRACE_S = 30.0


def fit_to_deadline(level: str, budget: Budget | None, remaining_s: float | None,
                    cap: Budget | None = None) -> Budget | None:
    """The budget to search with: what was asked (else the level's default), within
    ``cap`` whatever the request says (a worker's time is not the caller's to take), and
    short enough for the answer to be back before the deadline. Raises ``TimeoutError``
    when no answer can make it."""
    usable_ms = None
    if remaining_s is not None:
        usable_ms = remaining_s * 1000 * DEADLINE_SHARE - RESERVE_MS
        if usable_ms < MINIMUM_MS:
            raise TimeoutError(f"{remaining_s * 1000:.1f} ms left: too little to answer in time")
    base = budget or DEFAULT_BUDGETS.get(level)
    if base is None:  # Easy and Normal answer at once
        return None
    limits = [x for x in (base.milliseconds, usable_ms, cap and cap.milliseconds) if x]
    simulations = [x for x in (base.simulations, cap and cap.simulations) if x]
    return Budget(simulations=min(simulations) if simulations else None,
                  milliseconds=min(limits) if limits else None)


def worker_cap() -> Budget:
    """The most one decision may take here, from the settings."""
    return Budget(simulations=int(defaulted("PRESIDENT_AI_MAX_SIMULATIONS")),
                  milliseconds=float(defaulted("PRESIDENT_AI_MAX_MS")))


class AiServicer(ai_pb2_grpc.AiServiceServicer):  # type: ignore[misc]  # generated, untyped
    """Converts, checks, delegates to ``workers.ai.decide`` (``analyse`` when the request
    asks what was weighed). Never trusts the request."""

    def __init__(self, cap: Budget | None = None) -> None:
        self._cap = cap

    def Decide(self, request: ai_pb2.DecideRequest,
               context: grpc.ServicerContext) -> ai_pb2.DecideResponse:
        try:
            view, level, seed, budget = request_from_proto(request)
            if level not in LEVELS:
                raise ValueError(f"unknown level {level!r}; this worker serves {', '.join(LEVELS)}")
            check_view(view)
            also = also_from_proto(request)
            if also is not None and also not in view.legal_actions:
                raise ValueError(f"weigh_also {also} is not one of the view's legal actions")
        except ValueError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except Exception:  # a check that missed a malformed shape: still the input's fault
            log.exception("request rejected by a failing check")
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "malformed request")
        try:
            budget = fit_to_deadline(level, budget, context.time_remaining(), self._cap)
        except TimeoutError as exc:
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, str(exc))
        action, weighed = self._decide(view, level, seed, budget, request.explain, also,
                                       context)
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:  # never a late reply
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the answer came too late")
        return response_to_proto(action, weighed)

    @staticmethod
    def _decide(view: View, level: str, seed: int, budget: Budget | None, explain: bool,
                also: Action | None, context: grpc.ServicerContext
                ) -> tuple[Action, tuple[Weighed, ...]]:
        try:
            if explain:
                return analyse(view, level, seed=seed, budget=budget, also=also)
            return decide(view, level, seed=seed, budget=budget), ()
        except ValueError as exc:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except Exception:  # a bug must not take the worker down with it
            log.exception("decision failed (level %s)", level)
            context.abort(grpc.StatusCode.INTERNAL, "the AI failed on this view")
        raise AssertionError("unreachable: context.abort raises")


def build_server(address: str, *, reuse_port: bool = False, threads: int = 4,
                 cap: Budget | None = None, reflection_on: bool = True,
                 interceptors: Sequence[grpc.ServerInterceptor] = ()
                 ) -> tuple[grpc.Server, int]:
    """A server with the AI service (each decision within ``cap``), health checking and,
    unless turned off, reflection; not started."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads),
                         interceptors=interceptors,
                         options=[("grpc.so_reuseport", 1 if reuse_port else 0)])
    ai_pb2_grpc.add_AiServiceServicer_to_server(AiServicer(cap), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if reflection_on:
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    return server, port


def serve_one(address: str, reuse_port: bool, slot: int, max_calls: int,
              report: Connection) -> None:
    """One worker process: serve until SIGTERM or SIGINT, then drain. The stop signals
    are caught first of all: one that comes while the server is being built is kept
    for when it has started (an interrupt raised inside gRPC's set-up could leave the
    process unable to exit). It tells its parent through ``report`` when it serves and,
    after ``max_calls`` calls (0: never), that it wants replacing."""
    stop = stop_signals()
    name_process(f"ai-worker-{slot}")
    configure_logging()  # in each process: spawned ones start with none
    tracing.start("president-ai-worker")  # (before the server: its calls are traced)
    tell = Reporter(report)
    server, _ = build_server(address, reuse_port=reuse_port, cap=worker_cap(),
                             reflection_on=defaulted("PRESIDENT_AI_REFLECTION") == "on",
                             interceptors=[CallCounter(max_calls, tell.retire)] if max_calls
                             else [])
    server.start()
    tell.serving()
    os.read(stop, 1)
    name_process("ai-draining")
    server.stop(GRACE_S).wait()  # refuse new calls, let the ones in flight finish


def stop_signals() -> int:
    """A pipe's read end that gets a byte for each SIGTERM or SIGINT, however many come.
    The handler only writes that byte: one that took a lock (``threading.Event.set``)
    could run while the main thread held that very lock inside ``Event.wait()``, and wait
    for it forever (a second signal: the group's, then the parent's own)."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)

    def handler(*_: object) -> None:
        with contextlib.suppress(BlockingIOError):  # (full: a byte already waits)
            os.write(write_end, b"!")

    stops = (signal.SIGTERM, signal.SIGINT)
    for sig in stops:
        signal.signal(sig, handler)
    # a child started by the supervisor has them blocked: one that came meanwhile is
    # handled now
    signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
    return read_end


class CallCounter(grpc.ServerInterceptor):  # type: ignore[misc]  # untyped
    """Calls ``then`` once, when the AI service has been called ``calls`` times (health
    checks are not counted: they cost nothing and come at every probe)."""

    def __init__(self, calls: int, then: Callable[[], None]) -> None:
        self._count, self._calls, self._then = itertools.count(1), calls, then

    def intercept_service(self, continuation: Callable[[Any], Any],
                          details: grpc.HandlerCallDetails) -> Any:
        if details.method.startswith(f"/{SERVICE_NAME}/") and next(self._count) == self._calls:
            self._then()  # (itertools.count's next is atomic: exactly one call sees it)
        return continuation(details)


class Reporter:
    """What a worker process tells its parent, from any thread, over its pipe."""

    def __init__(self, pipe: Connection) -> None:
        self._pipe, self._lock = pipe, threading.Lock()

    def serving(self) -> None:
        self._send("serving")

    def retire(self) -> None:
        self._send("retire")

    def _send(self, message: str) -> None:
        with self._lock, contextlib.suppress(OSError):  # (a parent gone: nothing to tell)
            self._pipe.send(message)


def name_process(name: str) -> None:
    """The name ``ps`` shows (Linux; elsewhere nothing)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/comm").write_text(name[:15])
