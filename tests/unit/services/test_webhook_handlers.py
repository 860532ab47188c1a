"""Webhook handlers on fakes (``tests/fakes.py``): what a move tells, how an attempt's
answer settles a message and its endpoint, that a hand-over is attempted once, that
rows are bounded; and the adapters that need no network: the address policy against
server-side request forgery, the secret vault."""

from __future__ import annotations

import ipaddress
import threading
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet, InvalidToken

from fakes import FakeDatabase, PlainVault, play_inline
from services.runtime.background import BackgroundWebhooks
from services.commands import CreateGame, RegisterWebhook, SeatSpec, WebhookPolicy
from services.container import Webhooks
from services.domain import Answer, ApiKey, Caller, Delivery, WebhookEndpoint, origin_of
from services.errors import BadWebhook, TooManyWebhooks, UrlRefused
from services.handlers.games import create_game
from services.handlers.outbox import relay_webhooks
from services.handlers.followups import hooks_of
from services.handlers.webhooks import body, deliver, judge, prune, register
from services.store.secrets import FernetVault, machine_key
from workers.ai import LEVELS
from workers.webhooks.http import REFUSED, HttpSender, refused

POLICY = WebhookPolicy(retry_s=(5, 60), disable_after_s=3600, per_key=2, keep_s=600,
                       queue_wait_s=60, lease_s=30)
KEY = ApiKey("k" * 32, "app", frozenset({"webhooks", "games:create-ai", "games:create-human"}))
CALLER = Caller(KEY)
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


class Scripted:
    """A ``WebhookSender`` that answers as told and writes down what it sent."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.sent: list[tuple[str, str, str, str]] = []

    def check(self, url: str) -> None:
        if "refused" in url:
            raise UrlRefused("no")

    def send(self, url: str, webhook_id: str, body: str, secret: str) -> Answer:
        self.sent.append((url, webhook_id, body, secret))
        return self.answers.pop(0) if self.answers else Answer(200, 1)


class Queue:
    def __init__(self, fail: bool = False) -> None:
        self.handed: list[tuple[int, int]] = []
        self.fail = fail

    def deliver(self, message_id: int, hand: int) -> None:
        if self.fail:
            raise ConnectionError("the broker is down")
        self.handed.append((message_id, hand))


def _setup(*answers: Answer, types: tuple[str, ...] = ("round.ended", "series.ended")
           ) -> tuple[FakeDatabase, Clock, Scripted, str]:
    clock = Clock()
    db, sender = FakeDatabase(now=clock), Scripted(*answers)
    _, secret = register(RegisterWebhook("https://hooks.example.com/in", types), db.uow(),
                         CALLER, sender, PlainVault(), POLICY)
    return db, clock, sender, secret


def _series(db: FakeDatabase, caller: Caller = CALLER) -> str:
    play_inline(db)
    made = create_game(CreateGame("classic", (SeatSpec("ai", "easy"),) * 4, rounds=1, seed=3),
                       db.uow(), LEVELS, caller=caller)
    return made.game.game_id


def _attempt_all(db: FakeDatabase, sender: Scripted) -> list[str]:
    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    return [deliver(m, h, db.uow(), sender, PlainVault(), POLICY) for m, h in queue.handed]


def test_a_series_writes_one_message_per_event_its_owner_s_endpoint_asked_for() -> None:
    db, _, sender, secret = _setup(types=("series.ended",))
    game_id = _series(db)
    _series(db, Caller(ApiKey("o" * 32, "other", frozenset({"games:create-ai"}))))
    assert [m.type for m in db.messages.values()] == ["series.ended"]
    assert _attempt_all(db, sender) == ["delivered"]
    (url, webhook_id, text, used), = sender.sent
    assert used == secret and webhook_id.startswith("msg_")
    assert f'"game_id":"{game_id}"' in text and '"type":"series.ended"' in text


def test_a_failed_attempt_waits_its_pause_and_the_last_one_fails_the_message() -> None:
    db, clock, sender, _ = _setup(Answer(500, 3), Answer(None, 3, "timed out"), Answer(502, 3),
                                  types=("series.ended",))
    _series(db)
    assert _attempt_all(db, sender) == ["pending"]
    assert _attempt_all(db, sender) == []  # not due before its pause (5 s)
    clock.now += timedelta(seconds=5)
    assert _attempt_all(db, sender) == ["pending"]
    clock.now += timedelta(seconds=60)
    assert _attempt_all(db, sender) == ["failed"]  # three attempts: the policy's two pauses
    clock.now += timedelta(days=1)
    assert _attempt_all(db, sender) == []
    assert len({webhook_id for _, webhook_id, _, _ in sender.sent}) == 1
    assert len({text for _, _, text, _ in sender.sent}) == 1  # the same body every time
    endpoint, _ = next(iter(db.endpoints.values()))
    assert endpoint.enabled and endpoint.failing_since == T0  # failing since the first


def test_a_hand_over_is_attempted_once_however_many_copies_run() -> None:
    db, _, sender, _ = _setup(types=("series.ended",))
    _series(db)
    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    (message_id, hand), = queue.handed
    outcomes = [deliver(message_id, hand, db.uow(), sender, PlainVault(), POLICY) for _ in range(3)]
    assert outcomes == ["delivered", "not ours", "not ours"] and len(sender.sent) == 1


def test_a_message_whose_task_was_lost_is_handed_over_again_after_its_wait() -> None:
    db, clock, sender, _ = _setup(types=("series.ended",))
    _series(db)
    lost = Queue()
    relay_webhooks(db.uow(), lost, POLICY.queue_wait_s)  # handed to a worker that dies
    again = Queue()
    relay_webhooks(db.uow(), again, POLICY.queue_wait_s)
    assert again.handed == []  # its task may still start
    clock.now += timedelta(seconds=POLICY.queue_wait_s)
    relay_webhooks(db.uow(), again, POLICY.queue_wait_s)
    (message_id, hand), = again.handed
    assert deliver(*lost.handed[0], db.uow(), sender, PlainVault(), POLICY) == "not ours"
    assert deliver(message_id, hand, db.uow(), sender, PlainVault(), POLICY) == "delivered"


def test_a_message_whose_worker_died_mid_attempt_is_due_again_after_the_attempt_s_lease(
        ) -> None:
    db, clock, sender, _ = _setup(types=("series.ended",))
    _series(db)
    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    (message_id, hand), = queue.handed
    with db.uow() as uow:  # the attempt starts; its worker dies before the answer
        assert uow.webhooks.start(message_id, hand, POLICY.lease_s) is not None
    clock.now += timedelta(seconds=POLICY.lease_s - 1)
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    assert len(queue.handed) == 1
    clock.now += timedelta(seconds=1)
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    assert len(queue.handed) == 2
    assert deliver(*queue.handed[1], db.uow(), sender, PlainVault(), POLICY) == "delivered"
    assert next(iter(db.messages.values())).attempts == 2


def test_a_broker_that_refuses_leaves_the_message_due() -> None:
    db, _, sender, _ = _setup(types=("series.ended",))
    _series(db)
    with pytest.raises(ConnectionError):
        relay_webhooks(db.uow(), Queue(fail=True), POLICY.queue_wait_s)
    assert _attempt_all(db, sender) == ["delivered"]  # due at once, not after its wait


def test_410_disables_the_endpoint_and_fails_what_waits_for_it() -> None:
    db, _, sender, _ = _setup(Answer(410, 2))
    _series(db)  # round.ended and series.ended
    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    first, second = queue.handed
    assert deliver(*first, db.uow(), sender, PlainVault(), POLICY) == "failed"
    assert deliver(*second, db.uow(), sender, PlainVault(), POLICY) == "not ours"
    endpoint, _ = next(iter(db.endpoints.values()))
    assert not endpoint.enabled and endpoint.disabled_reason is not None
    assert "410" in endpoint.disabled_reason
    assert {m.state for m in db.messages.values()} == {"failed"} and len(sender.sent) == 1
    _series(db)
    assert len(db.messages) == 2  # a disabled endpoint gets nothing new


def _delivery(attempt: int, now: datetime, failing_since: datetime | None) -> Delivery:
    endpoint = WebhookEndpoint("e", "k", "https://x.example/", ("round.ended",),
                               failing_since=failing_since)
    return Delivery(1, "msg_1", "round.ended", {}, T0, attempt, endpoint, "s", now)


@pytest.mark.parametrize("answer, attempt, failing_for_s, state, retry_in_s, disabled", [
    (Answer(200, 1), 1, None, "delivered", None, False),
    (Answer(204, 1), 3, 100, "delivered", None, False),
    (Answer(500, 1), 1, None, "pending", 5, False),
    (Answer(None, 1, "refused"), 2, 10, "pending", 60, False),
    (Answer(301, 1), 1, None, "pending", 5, False),
    (Answer(500, 1), 3, 10, "failed", None, False),
    (Answer(410, 1), 1, None, "failed", None, True),
    (Answer(500, 1), 1, 3600, "failed", None, True),
])
def test_an_answer_settles_the_message_and_the_endpoint_s_health(
        answer: Answer, attempt: int, failing_for_s: float | None, state: str,
        retry_in_s: float | None, disabled: bool) -> None:
    now = T0 + timedelta(hours=2)
    since = None if failing_for_s is None else now - timedelta(seconds=failing_for_s)
    outcome = judge(_delivery(attempt, now, since), answer, POLICY)
    assert (outcome.state, outcome.retry_in_s) == (state, retry_in_s)
    assert (outcome.disabled_reason is not None) == disabled
    assert outcome.failing_since == (None if answer.ok else since or now)


def test_a_turn_s_body_says_its_deadline_and_is_the_same_text_every_time() -> None:
    endpoint = WebhookEndpoint("e", "k", "https://x.example/", ("seat.turn",))
    data: dict[str, Any] = {"game_id": "g", "version": 4, "seat": 2, "time_limit_ms": 30_000}
    turn = Delivery(1, "msg_1", "seat.turn", data, T0, 1, endpoint, "s", T0)
    text = body(turn)
    assert text == body(turn)
    assert '"deadline":"2026-01-01T00:00:30+00:00"' in text
    unlimited = Delivery(1, "msg_1", "seat.turn", {**data, "time_limit_ms": None}, T0, 1,
                         endpoint, "s", T0)
    assert '"deadline":null' in body(unlimited)


def test_registration_is_bounded_and_refuses_bad_urls_and_types() -> None:
    db, _, sender, _ = _setup()
    with pytest.raises(UrlRefused):
        register(RegisterWebhook("https://refused.example/", ("round.ended",)), db.uow(),
                 CALLER, sender, PlainVault(), POLICY)
    for url in ("ftp://x.example/", "https://u:p@x.example/", "https:///nohost",
                "https://x.example/" + "a" * 2048, "http://:@x.example/", "http://[::1",
                "http://x.example:99999/", "http://x.example:abc/", "http://x.example/\x00",
                "http://x.example/\r\nX: y", "http://x.example/a b", "http://x.example/\t"):
        with pytest.raises(BadWebhook):
            register(RegisterWebhook(url, ("round.ended",)), db.uow(), CALLER, sender, PlainVault(),
                     POLICY)
    with pytest.raises(BadWebhook):
        register(RegisterWebhook("https://x.example/", ("game.moved",)), db.uow(), CALLER,
                 sender, PlainVault(), POLICY)
    with pytest.raises(BadWebhook):
        register(RegisterWebhook("https://x.example/", ("round.ended",), "a\x00b"), db.uow(),
                 CALLER, sender, PlainVault(), POLICY)
    register(RegisterWebhook("https://x.example/", ("round.ended",)), db.uow(), CALLER, sender,
             PlainVault(), POLICY)
    with pytest.raises(TooManyWebhooks):  # the policy's two a key
        register(RegisterWebhook("https://x.example/", ("round.ended",)), db.uow(), CALLER,
                 sender, PlainVault(), POLICY)
    assert len(db.endpoints) == 2


def test_settled_messages_are_pruned_after_the_policy_keeps_them_and_waiting_ones_never(
        ) -> None:
    db, clock, sender, _ = _setup(Answer(500, 1))
    _series(db)  # two messages: one fails its first attempt, one is delivered
    assert sorted(_attempt_all(db, sender)) == ["delivered", "pending"]
    clock.now += timedelta(seconds=POLICY.keep_s + 1)
    assert prune(db.uow(), POLICY) == 1
    assert [m.state for m in db.messages.values()] == ["pending"]


@pytest.mark.parametrize("address, private, is_refused", [
    ("93.184.216.34", "off", False),
    ("2606:2800:220:1:248:1893:25c8:1946", "off", False),
    ("127.0.0.1", "off", True),
    ("127.0.0.1", "loopback", False),
    ("::1", "loopback", False),
    ("10.1.2.3", "loopback", True),
    ("10.1.2.3", "on", False),
    ("192.168.0.10", "off", True),
    ("172.16.5.4", "off", True),
    ("169.254.169.254", "off", True),  # the cloud's metadata service
    ("100.64.0.1", "off", True),  # carrier-grade NAT
    ("fd00::1", "off", True),
    ("fe80::1", "off", True),
    ("::ffff:127.0.0.1", "off", True),
    ("::ffff:127.0.0.1", "loopback", False),
    ("0.0.0.0", "on", True),
    ("224.0.0.1", "on", True),
    # IPv4 inside IPv6's other forms: compatible, Teredo; translated ones (SIIT, NAT64's
    # two prefixes, 6to4) never, whatever they stand for and whatever is allowed
    ("::127.0.0.1", "off", True),
    ("::127.0.0.1", "loopback", False),
    ("::ffff:0:7f00:1", "loopback", True),  # SIIT's 127.0.0.1
    ("::ffff:0:5db8:d822", "on", True),  # SIIT's 93.184.216.34
    ("64:ff9b::7f00:1", "off", True),
    ("64:ff9b:1::a00:1", "loopback", True),
    ("64:ff9b::5db8:d822", "on", True),  # 93.184.216.34 through a NAT64 gateway
    ("2002:7f00:1::", "off", True),
    ("2002:a9fe:a9fe::1", "loopback", True),  # the metadata service, through 6to4
    ("2002:5db8:d822::1", "on", True),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback", True),  # Teredo: never loopback
])
def test_the_address_policy_refuses_what_is_not_public(address: str, private: str,
                                                       is_refused: bool) -> None:
    assert refused(ipaddress.ip_address(address), private) == is_refused


def test_a_host_that_resolves_to_a_private_address_is_refused_before_any_request() -> None:
    sender = HttpSender(1.0, "off")
    for url in ("http://localhost:9/x", "http://127.0.0.1/x", "http://[::1]/x",
                "http://0x7f000001/x"):
        with pytest.raises(UrlRefused):
            sender.check(url)
    answer = sender.send("http://localhost:9/x", "msg_1", "{}", "whsec_" + "A" * 44)
    assert answer.status_code is None and answer.error == REFUSED
    with pytest.raises(ValueError):
        HttpSender(1.0, "sometimes")


def test_a_refused_url_s_error_names_no_address_nor_says_whether_it_resolved() -> None:
    # (else the error is a DNS oracle on the service's own network)
    sender = HttpSender(1.0, "off")
    messages = set()
    for url in ("http://localhost/x", "http://10.0.0.1/x", "http://[::ffff:0:a00:1]/x",
                "http://no-such-host.invalid/x"):
        with pytest.raises(UrlRefused) as refusal:
            sender.check(url)
        messages.add(refusal.value.message)
    assert messages == {REFUSED}
    assert not any(c.isdigit() for c in REFUSED)


def test_the_vault_seals_so_that_only_its_keys_open_and_keys_rotate() -> None:
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    sealed = FernetVault([old]).seal("whsec_secret")
    assert "whsec_secret" not in sealed
    rotated = FernetVault.from_setting(f"{new},{old}", "unused")
    assert rotated.open(sealed) == "whsec_secret"  # the old key still opens
    with pytest.raises(InvalidToken):
        FernetVault([old]).open(rotated.seal("x"))  # the new key seals now
    with pytest.raises(ValueError):
        FernetVault([])


def test_processes_racing_for_the_machine_key_all_read_the_same_one(tmp_path: Path) -> None:
    path = tmp_path / "var" / "secret.key"
    keys: list[str] = []
    threads = [threading.Thread(target=lambda: keys.append(machine_key(path)))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 1 and Fernet(keys[0].encode())
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in path.parent.iterdir()) == ["secret.key"]


def test_only_a_key_s_games_tell_webhooks_anything() -> None:
    db = FakeDatabase()
    for caller, told in ((CALLER, True), (Caller(origin=origin_of("10.0.0.7")), False),
                         (Caller(), False)):
        made = create_game(CreateGame("classic", (SeatSpec("human"),) * 4), db.uow(),
                           LEVELS, caller=caller, draw=lambda: 1)
        game = db.games[made.game.game_id].game
        assert bool(hooks_of(game, [], game.events)) == told  # (its first human turn)


def test_an_attempt_that_ends_after_a_later_success_judges_the_endpoint_as_it_is_now(
        ) -> None:
    """A starts while the endpoint has failed for longer than the policy allows; B starts
    and is delivered; then A fails. The endpoint has not failed since the success: it
    stays enabled, failing since A's moment, not since before B."""
    db, clock, _, _ = _setup()
    _series(db)  # two messages: A and B
    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    a, b = queue.handed
    endpoint, sealed = next(iter(db.endpoints.values()))
    db.endpoints[endpoint.id] = (replace(endpoint, failing_since=T0 - timedelta(days=1)),
                                 sealed)

    class BThenFail(Scripted):
        def send(self, url: str, webhook_id: str, body: str, secret: str) -> Answer:
            assert deliver(*b, db.uow(), Scripted(Answer(200, 1)), PlainVault(), POLICY) \
                == "delivered"
            return Answer(500, 1)

    assert deliver(*a, db.uow(), BThenFail(), PlainVault(), POLICY) == "pending"
    endpoint, _ = db.endpoints[endpoint.id]
    assert endpoint.enabled and endpoint.disabled_reason is None
    assert endpoint.failing_since == clock.now


def test_an_attempt_this_side_cannot_make_is_a_failed_attempt_not_a_lost_one() -> None:
    """A secret no key opens any more: the attempt is recorded as failed and the message
    keeps its schedule (it used to come back after every lease, never ending)."""
    db, _, sender, _ = _setup()
    _series(db)

    class Lost(PlainVault):
        def open(self, sealed: str) -> str:
            raise InvalidToken()

    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    assert deliver(*queue.handed[0], db.uow(), sender, Lost(), POLICY) == "pending"
    (attempt,) = db.attempts
    assert attempt.status_code is None and "not attempted" in (attempt.error or "")
    assert sender.sent == []


def test_a_turn_says_the_event_number_it_comes_after() -> None:
    db = FakeDatabase()
    made = create_game(CreateGame("classic", (SeatSpec("human"),) * 4), db.uow(),
                       LEVELS, caller=CALLER, draw=lambda: 1)
    game = db.games[made.game.game_id].game
    (turn,) = hooks_of(game, [], game.events)
    assert turn.type == "seat.turn" and turn.data["seq"] == game.events


def test_without_a_broker_settled_messages_are_pruned_as_messages_come_once_an_hour(
        ) -> None:
    """No Celery beat to prune them: the process's own pool does, at most hourly."""
    db, clock, sender, _ = _setup()
    _series(db)
    hours = [0.0]
    pool = BackgroundWebhooks(db.uow, Webhooks(sender, PlainVault(), POLICY),
                              monotonic=lambda: hours[0] * 3600)
    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    for handed in queue.handed:
        pool.deliver(*handed)
    pool.join()
    assert {m.state for m in db.messages.values()} == {"delivered"}
    clock.now += timedelta(seconds=POLICY.keep_s + 1)
    _series(db)  # two more: the first attempt prunes the two delivered long ago
    queue = Queue()
    relay_webhooks(db.uow(), queue, POLICY.queue_wait_s)
    hours[0] = 1.0
    pool.deliver(*queue.handed[0])
    pool.join()
    assert len(db.messages) == 2
    clock.now += timedelta(seconds=POLICY.keep_s + 1)
    pool.deliver(*queue.handed[1])  # within the hour: nothing pruned
    pool.join()
    assert len(db.messages) == 2
