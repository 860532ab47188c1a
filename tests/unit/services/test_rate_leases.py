"""The rate limits' leases: processes sharing one count never let more than the limit
through in a window, lose at most a lease each to the others, count exactly at small
limits, and start again in the next window."""

from __future__ import annotations

from limits import parse
from limits.storage import MemoryStorage

from services.api.limits import LEASE_SHARE, Leases, Window


def _admitted(leases: Leases, window: Window, tries: int) -> int:
    return sum(leases.hit(window) for _ in range(tries))


def test_processes_sharing_a_count_never_pass_the_limit_and_lose_at_most_a_lease_each() -> None:
    shared = MemoryStorage()
    processes = [Leases(shared) for _ in range(3)]
    window = Window("key:k", parse("1000/minute"), 7)
    admitted = 0
    for _ in range(500):  # interleaved, as three API processes would be
        admitted += sum(p.hit(window) for p in processes)
    lease = 1000 // LEASE_SHARE
    assert 1000 - 3 * lease < admitted <= 1000
    assert not any(p.hit(window) for p in processes)  # full for everyone


def test_a_small_limit_is_counted_exactly_across_processes() -> None:
    shared = MemoryStorage()
    first, second = Leases(shared), Leases(shared)
    window = Window("address:192.0.2.1", parse("3/minute"), 1)
    assert [first.hit(window), second.hit(window), first.hit(window)] == [True, True, True]
    assert not second.hit(window) and not first.hit(window)


def test_the_next_window_and_another_client_count_afresh() -> None:
    leases = Leases(MemoryStorage())
    rate = parse("2/second")
    assert _admitted(leases, Window("token:a", rate, 10), 5) == 2
    assert _admitted(leases, Window("token:a", rate, 11), 5) == 2
    assert _admitted(leases, Window("token:b", rate, 10), 5) == 2


def test_a_window_tells_how_long_until_the_next() -> None:
    window = Window("key:k", parse("10/minute"), 3)  # 180 s to 240 s
    assert window.ends_in(180.0) == 60
    assert window.ends_in(239.5) == 1
