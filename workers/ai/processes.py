"""The AI levels in a bounded pool of processes of this machine: how a service with no
broker (hence no gRPC AI worker) thinks without stopping its own event loop.

A level is pure CPU-bound Python: run in an API worker (a gevent loop) it would hold
the loop, and every request of that worker, for its whole budget. Here it runs in one
of ``workers`` child processes (started fresh, not forked from the patched loop, and
niced so the API's own processes get the cores first); the caller's greenlet waits on
a pipe. A child receives the seat's view only (``engine.observe``: its hand, what was
played, its legal actions) and answers an action.

Bounded: ``workers`` running and ``waiting`` queued at most. A caller that may be
refused (a hint) gets ``PoolFull`` at once when all are taken; one that must be served
(a background AI turn, a review: one thread each) waits for a place. A place is given
back when its child has answered, not when a caller stops waiting."""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
import time
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, NamedTuple, TypeVar

from engine import View
from engine.plays import Action
from workers.ai.budget import Budget
from workers.ai.levels import DEFAULT_BUDGETS, analyse, decide
from workers.ai.search import Weighed

T = TypeVar("T")
# Below the API's processes: under load the levels think with what is left over (their
# budgets are wall-clock, so a loaded machine means fewer simulations, not late answers).
NICENESS = 10
# A child's answer may come this long after its budget (its start, a loaded machine)
# before the caller gives up on it.
MARGIN_S = 5.0


class Analysis(NamedTuple):
    action: Action
    weighed: tuple[Weighed, ...]
    seconds: float  # the child's own time on it


class PoolFull(Exception):
    """Every place in the pool is taken: try again later."""


class PoolFailed(Exception):
    """A child process died or gave no answer in time."""


class Processes:
    """``workers`` processes thinking for this process, ``waiting`` more calls queued."""

    def __init__(self, workers: int, waiting: int) -> None:
        if workers < 1 or waiting < 0:
            raise ValueError("the pool needs at least one process and no negative queue")
        self.workers, self.places = workers, workers + waiting
        self._free = threading.BoundedSemaphore(self.places)
        self._taken = 0
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        atexit.register(self.close)

    def analyse(self, view: View, level: str, seed: int, budget: Budget | None,
                also: Action | None = None, wait: bool = False) -> Analysis:
        """``workers.ai.analyse`` in a child, and the seconds the child spent on it (its
        wait for a place left out); ``wait``: for a place, rather than ``PoolFull``."""
        return self._call(_analyse, (view, level, seed, budget, also), level, budget, wait)

    def decide(self, view: View, level: str, seed: int, wait: bool = True) -> Action:
        """``workers.ai.decide`` in a child."""
        return self._call(_decide, (view, level, seed), level, None, wait)

    def taken(self) -> int:
        """The places taken now: calls running or queued."""
        with self._lock:
            return self._taken

    def pids(self) -> list[int]:
        """The children's process ids (started as calls come, up to ``workers``)."""
        return list(_children(self._executor))

    def close(self) -> None:
        """Stop the children, a call in progress included (its caller gets
        ``PoolFailed``); the next call starts new ones."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is None:
            return
        for process in _children(executor).values():
            process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)

    def _call(self, function: Callable[..., T], args: tuple[Any, ...], level: str,
              budget: Budget | None, wait: bool) -> T:
        if not self._free.acquire(blocking=wait):
            raise PoolFull(f"the {self.places} places of this process's AI pool are taken")
        self._count(+1)
        try:
            future: Future[T] = self._running().submit(function, *args)
        except BaseException as error:
            self._give_back()
            if isinstance(error, BrokenProcessPool):
                self._forget_broken()
                raise PoolFailed(f"the AI level {level}'s processes stopped") from error
            raise
        future.add_done_callback(lambda _: self._give_back())
        try:
            return future.result(timeout=_seconds(level, budget) + MARGIN_S)
        except TimeoutError as error:
            raise PoolFailed(f"the AI level {level} gave no answer in time") from error
        except (BrokenProcessPool, CancelledError) as error:  # (cancelled: by ``close``)
            self._forget_broken()
            raise PoolFailed(f"the AI level {level}'s process stopped") from error

    def _count(self, change: int) -> None:
        with self._lock:
            self._taken += change

    def _give_back(self) -> None:
        self._count(-1)
        self._free.release()

    def _running(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=os.nice, initargs=(NICENESS,))
            return self._executor

    def _forget_broken(self) -> None:
        """A broken executor takes no more calls: the next one starts a new pool."""
        with self._lock:
            executor = self._executor
            if executor is not None and getattr(executor, "_broken", False):
                self._executor = None


def _children(executor: ProcessPoolExecutor | None) -> dict[int, Any]:
    # The executor's own table of its processes (Python 3.14 adds terminate_workers()).
    return dict(getattr(executor, "_processes", None) or {})


def _seconds(level: str, budget: Budget | None) -> float:
    chosen = budget or DEFAULT_BUDGETS.get(level)
    return (chosen.milliseconds or 0.0) / 1000 if chosen is not None else 0.0


def _analyse(view: View, level: str, seed: int, budget: Budget | None,
             also: Action | None) -> Analysis:
    started = time.perf_counter()
    action, weighed = analyse(view, level, seed=seed, budget=budget, also=also)
    return Analysis(action, weighed, time.perf_counter() - started)


def _decide(view: View, level: str, seed: int) -> Action:
    return decide(view, level, seed=seed)
