"""``president ai-worker --processes N``: the parent of N server processes on one port.

The levels are CPU-bound and Python threads would serialize them, so each process runs
a server bound to the same port with SO_REUSEPORT and the kernel spreads the
connections (grpc's own examples/python/multiprocessing). The parent never creates a
gRPC object: it reserves the port, starts the processes, stops them on SIGTERM or
Ctrl-C (each drains its calls in flight), and replaces them:

- after ``PRESIDENT_AI_MAX_CALLS`` calls (plus up to a tenth more, drawn per process,
  so that processes started together are not replaced together), as gunicorn's
  ``max_requests`` does: a server process's resident memory grows with the calls it has
  answered, below Python (gRPC's core; Python's own stays flat), fastest at first and
  levelling off near 100,000 calls (docs/decisions/capacity-0007-*). The replacement starts
  first; the old process is told to stop only once it serves, and finishes its calls;
- when one that was serving exits unasked (a crash, the kernel's OOM killer, a signal
  to it alone). One that exits before it serves is not restarted: it would only fail
  again.

Each process names itself ``ai-worker-<slot>`` (``ps``, the soak benchmark).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import random
import signal
import socket
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Iterator

from config.settings import defaulted
from workers.rpc.server import serve_one, stop_signals

log = logging.getLogger("president.ai_worker")


@dataclass(eq=False)
class Child:
    slot: int
    process: SpawnProcess
    messages: Connection | None  # the child's reports; None once it has closed its end
    serving: bool = False
    successor: Child | None = None  # starting in its place
    retired: bool = False  # told to stop by the parent


class Supervisor:
    def __init__(self, address: str, max_calls: int) -> None:
        self._address, self._max_calls = address, max_calls
        # spawned, not forked: no gRPC state crosses into a child
        self._context: SpawnContext = multiprocessing.get_context("spawn")
        self.children: list[Child] = []
        self.failures: list[int | None] = []  # exit codes other than a clean stop's
        self.stopping = False

    def start(self, slot: int) -> Child:
        receive, send = self._context.Pipe(duplex=False)
        calls = self._max_calls + random.randint(0, self._max_calls // 10)  # 0 stays 0
        process = self._context.Process(target=serve_one, args=(self._address, True, slot, calls,
                                                               send), daemon=False)
        with interrupts_ignored_by_the_child():
            process.start()
        send.close()  # the parent holds the receiving end only: EOF when the child is gone
        child = Child(slot, process, receive)
        self.children.append(child)
        return child

    def supervise(self, stop: int) -> None:
        """Until every child has exited: act on the stop pipe ``stop`` (a byte per stop
        signal), on the children's reports and on their exits."""
        while self.children:
            exits = {child.process.sentinel: child for child in self.children}
            reports = {child.messages: child for child in self.children
                       if child.messages is not None}
            # a stop first: a child that exits on the same signal is then not replaced
            for ready in sorted(wait([stop, *exits, *reports]), key=lambda r: r != stop):
                if ready == stop:
                    os.read(stop, 1)
                    self.stop()
                elif isinstance(ready, Connection):
                    self._receive(reports[ready])
                elif isinstance(ready, int):
                    self._reap(exits[ready])

    def stop(self) -> None:
        self.stopping = True
        for child in self.children:
            child.process.terminate()  # SIGTERM: it drains its calls; again is harmless

    def _receive(self, child: Child) -> None:
        if child.messages is None:  # reaped in this same round
            return
        try:
            message = child.messages.recv()
        except EOFError:  # it is exiting: its sentinel follows
            child.messages.close()
            child.messages = None
            return
        if message == "serving":
            child.serving = True
            for old in self.children:
                if old.successor is child:
                    old.retired = True
                    old.process.terminate()
        elif message == "retire" and not self.stopping and child.successor is None:
            log.info("AI worker process %s (slot %d) is replaced after its calls",
                     child.process.pid, child.slot)
            child.successor = self.start(child.slot)

    def _reap(self, child: Child) -> None:
        child.process.join()
        while child.messages is not None and child.messages.poll():  # what it said last
            self._receive(child)
        self.children.remove(child)
        code = child.process.exitcode
        for old in self.children:
            if old.successor is child:  # the old one serves on
                old.successor = None
        if child.retired or self.stopping:
            return
        if code not in (0, -signal.SIGTERM):
            self.failures.append(code)
        if not child.serving:
            log.error("AI worker process %s (slot %d) exited before serving (exit code %s): "
                      "not restarted", child.process.pid, child.slot, code)
        elif child.successor is None:  # (one starting already takes its place)
            log.warning("AI worker process %s (slot %d) exited unasked (exit code %s): "
                        "replaced", child.process.pid, child.slot, code)
            child.successor = self.start(child.slot)


@contextlib.contextmanager
def interrupts_ignored_by_the_child() -> Iterator[None]:
    """Around a child's start: the stop signals blocked and SIGINT ignored, which the
    child inherits across its exec. So a Ctrl-C while it starts is left to its parent
    rather than raised anywhere in it, and it handles a SIGTERM that came meanwhile once
    it catches the stop signals itself (``stop_signals`` unblocks them). The parent
    keeps any that came to it: blocked, a signal waits (on Linux even while ignored)."""
    stops = {signal.SIGINT, signal.SIGTERM}
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


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


def run(host: str, port: int, processes: int, max_calls: int | None = None) -> int:
    """The ``ai-worker`` command: N processes on one port until SIGTERM / Ctrl-C; 1 if
    any of them failed."""
    if max_calls is None:
        max_calls = int(defaulted("PRESIDENT_AI_MAX_CALLS"))
    with reserve_port(host, port) as bound:
        address = f"[{host}]:{bound}" if ":" in host else f"{host}:{bound}"
        supervisor = Supervisor(address, max_calls)
        stop = stop_signals()
        for slot in range(processes):
            supervisor.start(slot)
        print(f"AI worker listening on {address} with {processes} process(es)", flush=True)
        supervisor.supervise(stop)
    return 1 if supervisor.failures else 0
