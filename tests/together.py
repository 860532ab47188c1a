"""Work run by several threads at once, for the tests of races."""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

T = TypeVar("T")


def at_once(work: Callable[[], T], threads: int) -> list[T]:
    """What ``work`` answered in each of ``threads`` threads started together; the first
    error any of them raised is raised here, once all are done."""
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(work())
        except BaseException as error:  # noqa: BLE001 - raised below, in the test
            errors.append(error)

    started = [threading.Thread(target=run) for _ in range(threads)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    if errors:
        raise errors[0]
    return results
