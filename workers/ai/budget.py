"""How much a searching level may think: a count of simulations, a time, or both."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Budget:
    """Stop at whichever limit comes first. Counted in simulations, a decision is
    deterministic for a given view and seed; a time budget adds the machine's noise."""

    simulations: int | None = None
    milliseconds: float | None = None

    def __post_init__(self) -> None:
        if self.simulations is None and self.milliseconds is None:
            raise ValueError("a budget needs simulations, milliseconds or both")
        if self.simulations is not None and self.simulations < 1:
            raise ValueError("simulations must be at least 1")
        if self.milliseconds is not None and not 0 < self.milliseconds < math.inf:
            raise ValueError("milliseconds must be positive and finite")  # NaN fails too

    def start(self) -> Clock:
        return Clock(self)


class Clock:
    """A budget being spent."""

    __slots__ = ("_limit", "_deadline", "spent")

    # Stop a little early: the last simulation and the answer must fit in the budget.
    _MARGIN = 0.85

    def __init__(self, budget: Budget) -> None:
        self._limit = budget.simulations
        self._deadline = (None if budget.milliseconds is None
                          else time.perf_counter() + budget.milliseconds * self._MARGIN / 1000)
        self.spent = 0

    def exhausted(self) -> bool:
        if self._limit is not None and self.spent >= self._limit:
            return True
        return self._deadline is not None and time.perf_counter() >= self._deadline
