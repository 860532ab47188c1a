"""The AI levels in a pool of child processes (what a service with no broker thinks in):
the same answers as in process, in niced children, within the pool's places (refused
or waited for past them), and children stopped with the pool or replaced when one dies."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Callable, Iterator

import pytest

from engine import Rules, View, new_series, observe
from workers.ai import Budget, analyse, decide
from workers.ai.processes import NICENESS, PoolFailed, PoolFull, Processes

LONG = Budget(milliseconds=1500)  # a call that holds its place while the test looks


@pytest.fixture
def view() -> View:
    state = new_series(Rules.preset("classic"), seed=3)
    return next(v for v in (observe(state, s) for s in range(4)) if v.legal_actions)


@pytest.fixture
def pool() -> Iterator[Processes]:
    made = Processes(workers=1, waiting=1)
    yield made
    made.close()


def _until(condition: Callable[[], bool], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the pool never got there"
        time.sleep(0.01)


class Holding:
    """``calls`` long Expert analyses, waiting for their places, on threads; how each
    ended (None: answered)."""

    def __init__(self, pool: Processes, view: View, calls: int) -> None:
        self.ends: list[BaseException | None] = []
        self._threads = [threading.Thread(target=self._call, args=(pool, view))
                         for _ in range(calls)]
        for thread in self._threads:
            thread.start()
        _until(lambda: pool.taken() == calls)

    def _call(self, pool: Processes, view: View) -> None:
        try:
            pool.analyse(view, "expert", 1, LONG, wait=True)
            self.ends.append(None)
        except PoolFailed as error:
            self.ends.append(error)

    def join(self) -> list[BaseException | None]:
        for thread in self._threads:
            thread.join()
        return self.ends


def test_a_child_answers_as_the_level_does_here(pool: Processes, view: View) -> None:
    counted = Budget(simulations=40)  # counted, not timed: deterministic
    found = pool.analyse(view, "expert", 5, counted)
    assert (found.action, found.weighed) == analyse(view, "expert", seed=5, budget=counted)
    assert found.seconds > 0
    assert pool.decide(view, "normal", 5) == decide(view, "normal", seed=5)
    (child,) = pool.pids()
    assert child != os.getpid()
    here = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, child) == min(here + NICENESS, 19)
    assert pool.taken() == 0


def test_past_its_places_a_call_is_refused_at_once(pool: Processes, view: View) -> None:
    holding = Holding(pool, view, pool.places)
    started = time.monotonic()
    with pytest.raises(PoolFull):
        pool.analyse(view, "expert", 1, LONG)
    assert time.monotonic() - started < LONG.milliseconds / 1000  # not after a wait
    assert holding.join() == [None] * pool.places
    assert pool.taken() == 0
    assert pool.decide(view, "easy", 1) in view.legal_actions  # places given back


def test_a_call_that_may_wait_is_served_once_a_place_is_free(pool: Processes,
                                                             view: View) -> None:
    holding = Holding(pool, view, pool.places)
    assert pool.decide(view, "normal", 2, wait=True) == decide(view, "normal", seed=2)
    assert holding.join() == [None] * pool.places


def test_closing_the_pool_stops_its_children_even_mid_call(pool: Processes,
                                                           view: View) -> None:
    pool.decide(view, "easy", 1)
    children = pool.pids()
    holding = Holding(pool, view, 1)
    pool.close()
    assert [type(end) for end in holding.join()] == [PoolFailed]
    for child in children:
        with pytest.raises(ProcessLookupError):
            os.kill(child, 0)
    assert pool.taken() == 0
    assert pool.decide(view, "easy", 1) in view.legal_actions  # a new pool, on demand


def test_a_child_that_dies_fails_its_call_and_is_replaced(pool: Processes,
                                                          view: View) -> None:
    pool.decide(view, "easy", 1)
    (child,) = pool.pids()
    holding = Holding(pool, view, 1)
    time.sleep(0.2)  # the call reached the child
    os.kill(child, signal.SIGKILL)
    assert [type(end) for end in holding.join()] == [PoolFailed]
    assert pool.taken() == 0
    assert pool.decide(view, "easy", 1) in view.legal_actions
    assert pool.pids() != [child]
