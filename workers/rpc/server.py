"""The gRPC AI worker: ``president ai-worker --port 50051 --processes N``.

The levels are CPU-bound and Python threads would serialize them, so N processes each
run a server bound to the same port with SO_REUSEPORT and the kernel spreads the
connections (grpc's own examples/python/multiprocessing). The parent never creates a
gRPC object: it reserves the port, spawns the workers and forwards SIGTERM to them;
each worker stops accepting calls and lets those in flight finish.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
from concurrent import futures
from typing import Callable, Iterator

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
                 cap: Budget | None = None, reflection_on: bool = True
                 ) -> tuple[grpc.Server, int]:
    """A server with the AI service (each decision within ``cap``), health checking and,
    unless turned off, reflection; not started."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads),
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


def serve_one(address: str, reuse_port: bool) -> None:
    """One worker process: serve until SIGTERM or SIGINT, then drain. The stop signals
    are caught first of all: one that comes while the server is being built is kept
    for when it has started (an interrupt raised inside gRPC's set-up could leave the
    process unable to exit)."""
    wait_for_stop = stop_signals()
    configure_logging()  # in each process: spawned ones start with none
    tracing.start("president-ai-worker")  # (before the server: its calls are traced)
    server, _ = build_server(address, reuse_port=reuse_port, cap=worker_cap(),
                             reflection_on=defaulted("PRESIDENT_AI_REFLECTION") == "on")
    server.start()
    wait_for_stop()
    server.stop(GRACE_S).wait()  # refuse new calls, let the ones in flight finish


def stop_signals() -> Callable[[], None]:
    """A wait for SIGTERM or SIGINT, however many come. The handler only writes a byte to
    a pipe: one that took a lock (``threading.Event.set``) could run while the main
    thread held that very lock inside ``Event.wait()``, and wait for it forever (a second
    signal: the group's, then the parent's own)."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)

    def handler(*_: object) -> None:
        with contextlib.suppress(BlockingIOError):  # (full: a byte already waits)
            os.write(write_end, b"!")

    def wait() -> None:
        os.read(read_end, 1)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)
    return wait


@contextlib.contextmanager
def reserve_port(host: str, port: int) -> Iterator[int]:
    """Hold ``host:port`` (port 0: any free one) with SO_REUSEPORT while workers bind it."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
        yield sock.getsockname()[1]
    finally:
        sock.close()


def run(host: str, port: int, processes: int) -> int:
    """The ``ai-worker`` command: N processes on one port until SIGTERM / Ctrl-C."""
    with reserve_port(host, port) as bound:
        address = f"[{host}]:{bound}" if ":" in host else f"{host}:{bound}"
        context = multiprocessing.get_context("spawn")  # no gRPC state crosses a fork
        workers = [context.Process(target=serve_one, args=(address, True), daemon=False)
                   for _ in range(processes)]
        # Ignored until each process catches it itself: a child inherits the ignoring
        # across its exec, so a Ctrl-C while it starts is kept rather than raised anywhere.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for worker in workers:
            worker.start()
        print(f"AI worker listening on {address} with {processes} process(es)", flush=True)

        def stop(*_: object) -> None:
            for worker in workers:
                if worker.is_alive() and worker.pid is not None:
                    worker.terminate()  # SIGTERM: each worker drains its calls

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        for worker in workers:
            worker.join()
    failed = [w.exitcode for w in workers if w.exitcode not in (0, -signal.SIGTERM)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run("127.0.0.1", 50051, 1))
