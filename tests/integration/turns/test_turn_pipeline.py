"""The Celery side of the turn pipeline, without worker processes: settings, queues, the
app's reliability settings, the scheduler's messages (kombu's in-memory transport), the
backoff, the ``president.ai_turn`` task run eagerly, and the embedded broker's cleanup.
The same with real processes is tests/e2e/test_pipeline.py."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, fields, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Iterator
from uuid import uuid4

import pytest
from celery import Celery
from celery.worker.consumer import Consumer
from kombu import Connection, Queue
from kombu.exceptions import OperationalError as KombuOperationalError
from kombu.utils import functional as kombu_functional
from kombu.utils.imports import symbol_by_name
from kombu.transport import sqlalchemy as sqla_transport
from sqlalchemy import Engine, create_engine, inspect, select, text
from sqlalchemy.exc import OperationalError

from databases import REDIS_URL, UowReads, set_last_move
from fakes import FakeDatabase, Told
from dealt import create_dealt
from engine import Played, Rules, View, new_series, observe
from engine.plays import Action
from services.commands import CreateGame, ReadGame, SeatSpec
from services.domain import PlayedFor
from services.handlers.events import events_after
from services.handlers.games import create_game, read_game
from services.handlers.outbox import relay
from config.settings import SETTINGS, defaulted, setting
from services.store.models import ActionRow
from services.ports import UnitOfWork
from workers.ai import LEVELS, decide as ai_decide
from workers.rpc.client import AiUnavailable, UnknownEngine
from workers.turns import embedded
from workers.turns.app import (
    BOTS_QUEUE, DEFAULT_QUEUES, MAINTENANCE_QUEUE, QUEUES, RATINGS_QUEUE, REVIEWS_QUEUE,
    WEBHOOKS_QUEUE, make_celery,
    queue_for,
)
from benchmarks.ports import free_port
from bootstrap import FALLBACK
from workers.turns.broker import quick, uptime_s
from workers.turns.runtime import TurnRuntime
from workers.turns.scheduler import COUNTDOWN_LIMIT_S, CeleryScheduler, CeleryWebhooks
from workers.turns.settings import EMBEDDED_BROKER, SWEEP_MARGIN_S, TurnSettings
from workers.turns.tasks import backoff

UowFactory = Callable[[], UnitOfWork]
ROOT = Path(__file__).resolve().parents[3]
TASKS = ("president.ai_turn", "president.turn_timeout", "president.sweep",
         "president.broker_cleanup", "president.deliver_webhook", "president.prune_webhooks",
         "president.expire_presence", "president.rate_rounds", "president.match",
         "president.review_round", "president.sweep_reviews")


# --- settings --------------------------------------------------------------------------------

ENV = {
    "CELERY_BROKER_URL": ("redis://broker:6379/3", "broker_url", "redis://broker:6379/3"),
    "PRESIDENT_AI_DEADLINE_MS": ("1500", "ai_deadline_s", 1.5),
    "PRESIDENT_AI_RETRIES": ("7", "ai_retries", 7),
    "PRESIDENT_AI_RETRY_BASE_MS": ("25", "retry_base_s", 0.025),
    "PRESIDENT_SWEEP_EVERY_S": ("2.5", "sweep_every_s", 2.5),
    "PRESIDENT_TURN_EXPIRES_S": ("3", "turn_expires_s", 3.0),
    "PRESIDENT_BROKER_POLL_MS": ("80", "broker_poll_s", 0.08),
    "PRESIDENT_TAKEOVER_AFTER_TIMEOUTS": ("5", "take_over_after", 5),
}


def test_turn_settings_default_to_the_declared_defaults() -> None:
    defaults = TurnSettings.from_env({})
    assert TurnSettings.from_env({name: "" for name in ENV}) == defaults  # empty: unset
    assert defaults.broker_url == EMBEDDED_BROKER
    declared = {name: float(setting(name, {}) or 0) for name in ENV if name != "CELERY_BROKER_URL"}
    assert (defaults.ai_deadline_s * 1000, defaults.ai_retries, defaults.retry_base_s * 1000,
            defaults.sweep_every_s, defaults.turn_expires_s, defaults.broker_poll_s * 1000) \
        == (declared["PRESIDENT_AI_DEADLINE_MS"], declared["PRESIDENT_AI_RETRIES"],
            declared["PRESIDENT_AI_RETRY_BASE_MS"], declared["PRESIDENT_SWEEP_EVERY_S"],
            declared["PRESIDENT_TURN_EXPIRES_S"], declared["PRESIDENT_BROKER_POLL_MS"])


def test_the_sweeper_waits_for_every_copy_of_a_turn_to_be_over() -> None:
    """A copy not started ``turn_expires_s`` after it was due has expired; one started by
    then thinks for ``ai_deadline_s`` at most: after both (and a margin), none is live."""
    read = TurnSettings.from_env({"PRESIDENT_TURN_EXPIRES_S": "3",
                                  "PRESIDENT_AI_DEADLINE_MS": "1500"})
    assert read.sweep_after_s == 3 + 1.5 + SWEEP_MARGIN_S
    assert TurnSettings.from_env({}).sweep_after_s > TurnSettings.from_env({}).turn_expires_s


def test_just_after_a_broker_restart_the_sweeper_sends_the_turns_it_lost_sooner() -> None:
    read = TurnSettings.from_env({"PRESIDENT_TURN_EXPIRES_S": "3",
                                  "PRESIDENT_AI_DEADLINE_MS": "1500"})
    assert read.sweep_after_now(None) == read.sweep_after_s == 5.0  # no Redis to ask
    assert read.sweep_after_now(3600.0) == 5.0  # up for long: as usual
    assert read.sweep_after_now(1.0) == 5.0  # a copy started before may still think
    assert read.sweep_after_now(2.0) == 2.0  # the turns due before it started: lost
    assert read.sweep_after_now(2.5) == 2.0
    assert read.sweep_after_now(3.0) == 2.0  # and those due in its first second
    assert read.sweep_after_now(4.0) == 3.0
    assert read.sweep_after_now(5.5) == 4.5
    assert read.sweep_after_now(7.0) == 5.0  # (never more than as usual)


def test_the_broker_s_uptime_is_redis_s_own_and_none_from_any_other() -> None:
    def up(url: str) -> float | None:
        return uptime_s(make_celery(TurnSettings.from_env({}, broker_url=url)))

    assert up("memory://") is None and up(EMBEDDED_BROKER) is None
    assert up(f"redis://127.0.0.1:{free_port()}/0") is None  # no answer
    if REDIS_URL is not None:
        seconds = up(REDIS_URL)
        assert seconds is not None and seconds >= 0


@pytest.mark.parametrize("name", sorted(ENV))
def test_turn_settings_read_each_variable(name: str) -> None:
    value, field, expected = ENV[name]
    read = TurnSettings.from_env({name: value, "UNRELATED": "1"})
    assert getattr(read, field) == expected
    assert getattr(read, field) != getattr(TurnSettings.from_env({}), field)
    defaults = TurnSettings.from_env({})
    assert replace(read, **{field: getattr(defaults, field)}) == defaults


def test_turn_settings_read_them_all_together_and_from_the_process_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    read = TurnSettings.from_env({name: value for name, (value, _, _) in ENV.items()})
    assert {field: getattr(read, field) for _, field, _ in ENV.values()} \
        == {field: expected for _, field, expected in ENV.values()}
    assert {f.name for f in fields(TurnSettings)} - {field for _, field, _ in ENV.values()} \
        == {"retry_cap_s"}  # the only one not configurable
    monkeypatch.setenv("PRESIDENT_AI_RETRIES", "9")
    assert TurnSettings.from_env().ai_retries == 9


def test_an_undeclared_setting_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        setting("PRESIDENT_NO_SUCH_SETTING", {"PRESIDENT_NO_SUCH_SETTING": "1"})
    with pytest.raises(KeyError):
        setting("PRESIDENT_AI_RETRIE")  # a typo, even with the process environment
    assert setting("PRESIDENT_AI_RETRIES", {"PRESIDENT_AI_RETRIES": "3"}) == "3"
    assert setting("PRESIDENT_AI_RETRIES", {}) == "5"
    assert setting("CELERY_BROKER_URL", {}) is None
    assert defaulted("PRESIDENT_LOG_LEVEL", {}) == "INFO"
    assert defaulted("PRESIDENT_LOG_LEVEL", {"PRESIDENT_LOG_LEVEL": "DEBUG"}) == "DEBUG"
    with pytest.raises(KeyError, match="without a default"):
        defaulted("CELERY_BROKER_URL", {})


SETTING_CALL = re.compile(r"(?<!def )\b(?:setting|defaulted)\(\s*([^,)\s]+)")
QUOTED = re.compile(r"""^(["'])([^"']*)\1$""")


def _names_read(path: Path) -> list[str]:
    """The settings named by this file's ``setting(…)`` calls: a literal, a module
    constant, or a parameter of a local helper called with literals."""
    source = path.read_text()
    names = []
    for call in SETTING_CALL.finditer(source):
        arg = call.group(1)
        literal = QUOTED.match(arg)
        if literal:
            names.append(literal.group(2))
            continue
        assert re.fullmatch(r"[A-Za-z_]\w*", arg), f"{path}: setting({arg} …"
        if arg.isupper():
            constant = re.search(rf"""^{arg}\s*(?::[^=]+)?=\s*(["'])([^"']+)\1""", source, re.M)
            assert constant, f"{path}: setting({arg}): no constant {arg} in the file"
            names.append(constant.group(2))
            continue
        helpers = re.findall(rf"def (\w+)\(\s*{arg}\b", source[:call.start()])
        assert helpers, f"{path}: setting({arg}): {arg} is neither literal nor a parameter"
        given = re.findall(rf"""\b{helpers[-1]}\(\s*(["'])([^"']+)\1""", source)
        assert given, f"{path}: {helpers[-1]}() is never called with a setting's name"
        names.extend(name for _, name in given)
    return names


def _source_files() -> list[Path]:
    files = [p for folder in ("engine", "config", "services", "workers", "president_cli",
                              "benchmarks")
             for p in sorted((ROOT / folder).rglob("*.py"))]
    return [p for p in files if p != ROOT / "config" / "settings.py"] + [ROOT / "bootstrap" / "__init__.py"]


def test_every_setting_read_is_declared_and_every_declared_one_is_read() -> None:
    declared = {s.name for s in SETTINGS}
    assert len(declared) == len(SETTINGS)
    read: dict[str, list[str]] = {}
    for path in _source_files():
        for name in _names_read(path):
            read.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert {"DATABASE_URL", "CELERY_BROKER_URL", "PRESIDENT_AI_ENGINES",
            "PRESIDENT_AI_RETRIES"} <= set(read)  # the scan does find calls of each kind
    assert {n: where for n, where in read.items() if n not in declared} == {}
    assert sorted(declared - set(read)) == [], "declared but read nowhere"


# --- queues and the app ----------------------------------------------------------------------


def test_each_built_in_level_has_its_queue_and_bots_share_one() -> None:
    for level in LEVELS:
        assert queue_for(level) == f"ai.{level}"
    for other in ("mybot", "greedy", "Easy", "easy ", "", "bots", "ai.easy"):
        assert queue_for(other) == BOTS_QUEUE == "ai.bots"
    assert len(QUEUES) == len(set(QUEUES)) == len(LEVELS) + 5
    assert set(QUEUES) == {f"ai.{level}" for level in LEVELS} | {
        BOTS_QUEUE, MAINTENANCE_QUEUE, WEBHOOKS_QUEUE, RATINGS_QUEUE, REVIEWS_QUEUE}
    assert {MAINTENANCE_QUEUE, WEBHOOKS_QUEUE, RATINGS_QUEUE, REVIEWS_QUEUE}.isdisjoint(
        {queue_for(level) for level in LEVELS})
    assert set(DEFAULT_QUEUES) == set(QUEUES) - {REVIEWS_QUEUE}  # reviews: workers of their own


def test_make_celery_registers_the_tasks_acknowledged_on_receipt_and_a_sweep() -> None:
    settings = TurnSettings.from_env({}, broker_url="memory://", ai_retries=3, sweep_every_s=7.0)
    app = make_celery(settings)
    assert set(TASKS) <= set(app.tasks)
    assert app.tasks["president.ai_turn"].max_retries == 3
    conf = app.conf
    assert conf.task_acks_late is False  # a turn lost with its worker: the sweeper's
    from kombu.transport import redis
    assert redis.QoS.restore_at_shutdown is False  # (nothing to put back at a reconnect)
    assert conf.worker_prefetch_multiplier == 1
    assert conf.task_default_queue == MAINTENANCE_QUEUE
    assert conf.task_serializer == "json"
    schedule = conf.beat_schedule
    assert set(schedule) == {"sweep", "prune-webhooks", "expire-presence", "match",
                             "sweep-reviews"}  # no
    # broker cleanup: not embedded
    assert schedule["prune-webhooks"]["task"] == "president.prune_webhooks"
    assert schedule["sweep"]["task"] == "president.sweep"
    assert schedule["sweep"]["schedule"] == 7.0
    assert schedule["sweep"]["options"]["queue"] == MAINTENANCE_QUEUE
    assert schedule["sweep-reviews"]["options"]["queue"] == MAINTENANCE_QUEUE
    assert make_celery(settings) is not app  # an app per call, never the current app


@pytest.mark.parametrize("broker_url, held_back", [
    ("redis://127.0.0.1:6379/0", True), ("rediss://cache:6380/1", True),
    (EMBEDDED_BROKER, False), ("memory://", False)])
def test_on_redis_a_worker_takes_no_message_before_a_process_is_free_to_start_it(
        broker_url: str, held_back: bool) -> None:
    """(Celery's ``worker_disable_prefetch``, which only Redis has: a message held behind
    a new worker's slow first turns would expire there, unstarted.)"""
    app = make_celery(TurnSettings.from_env({}, broker_url=broker_url))
    assert app.conf.worker_disable_prefetch is held_back


def test_the_tasks_belong_to_their_app_only() -> None:
    """Each app's tasks close over its own settings and runtime: another app made in the
    same process (a second ``make_celery``, a test, a benchmark) must not be handed them,
    else it runs the first app's closures, with the first app's settings and scheduler."""
    ours = make_celery(TurnSettings.from_env({}, broker_url="memory://", ai_retries=1))
    assert set(TASKS) <= set(ours.tasks)
    other = Celery("other", broker="memory://", set_as_current=False)
    assert not set(TASKS) & set(other.tasks)


def test_make_celery_on_the_embedded_broker_cleans_it_and_sets_its_polling(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = sqla_transport.Transport
    monkeypatch.setattr(transport, "polling_interval", transport.polling_interval)  # restored
    settings = TurnSettings.from_env({}, broker_url=f"sqla+sqlite:///{tmp_path}/broker.db",
                            broker_poll_s=0.123)
    app = make_celery(settings)
    assert transport.polling_interval == 0.123
    schedule = app.conf.beat_schedule
    assert set(schedule) == {"sweep", "prune-webhooks", "expire-presence", "match",
                             "sweep-reviews", "broker-cleanup"}
    assert schedule["broker-cleanup"]["task"] == "president.broker_cleanup"
    assert schedule["broker-cleanup"]["options"]["queue"] == MAINTENANCE_QUEUE
    assert set(TASKS) <= set(app.tasks)
    assert not (tmp_path / "broker.db").exists()  # nothing connects yet


def test_a_worker_tries_its_broker_again_a_tenth_of_a_second_after_a_failed_try(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Not kombu's 2 s, then 4 …: a restarted Redis is found again as soon as it is up."""
    app = make_celery(TurnSettings.from_env({}, broker_url=f"redis://127.0.0.1:{free_port()}/0"))
    assert app.conf.worker_consumer == "workers.turns.broker:QuickReconnect"
    assert issubclass(symbol_by_name(app.conf.worker_consumer), Consumer)
    app.conf.broker_connection_max_retries = 3
    slept: list[float] = []
    monkeypatch.setattr(kombu_functional, "sleep", slept.append)
    # Celery's own reconnect loop, on a worker's consumer as it stands at a reconnect
    worker = SimpleNamespace(app=app, first_connection_attempt=False,
                             broker_connection_retry_attempt=0)
    with pytest.raises(KombuOperationalError):
        Consumer.ensure_connected(worker, quick(app.connection_for_read()))
    assert [round(s, 3) for s in slept if s] == [0.1, 0.6, 1.0, 0.1]  # 0.1, 0.6, 1.1 s
    assert worker.broker_connection_retry_attempt == 3


# --- the scheduler's messages ----------------------------------------------------------------


@pytest.fixture
def memory_app() -> Iterator[Celery]:
    app = make_celery(TurnSettings.from_env({}, broker_url="memory://"))
    _drain(app)  # the in-memory broker is shared by the whole process
    yield app
    _drain(app)


def _drain(app: Celery) -> None:
    with app.connection_for_read() as conn:
        for name in QUEUES:
            queue = conn.SimpleQueue(name)
            queue.clear()
            queue.close()


def _received(app: Celery) -> dict[str, list[Any]]:
    """Every message waiting, by the queue it is on."""
    got: dict[str, list[Any]] = {}
    with app.connection_for_read() as conn:
        for name in QUEUES:
            queue = conn.SimpleQueue(name)
            while True:
                try:
                    message = queue.get(block=False)
                except queue.Empty:
                    break
                message.ack()
                got.setdefault(name, []).append(message)
            queue.close()
    return got


def _eta(message: Any) -> datetime | None:
    eta = message.headers.get("eta")
    return None if eta is None else datetime.fromisoformat(eta)


def test_an_ai_turn_goes_to_its_levels_queue_after_its_delay(memory_app: Celery) -> None:
    scheduler = CeleryScheduler(memory_app, 2.0)
    start = datetime.now(timezone.utc)
    scheduler.ai_turn("game-1", 2, 7, "hard", 1.5)
    end = datetime.now(timezone.utc)
    scheduler.ai_turn("game-2", 1, 3, "mybot")
    scheduler.ai_turn("game-3", 0, 0, "easy", 0.0)

    got = _received(memory_app)
    assert {name: len(messages) for name, messages in got.items()} \
        == {"ai.hard": 1, "ai.bots": 1, "ai.easy": 1}
    hard, bot, easy = got["ai.hard"][0], got["ai.bots"][0], got["ai.easy"][0]
    for message, args in ((hard, ["game-1", 2, 7]), (bot, ["game-2", 1, 3]),
                          (easy, ["game-3", 0, 0])):
        assert message.headers["task"] == "president.ai_turn"
        assert list(message.payload[0]) == args and message.payload[1] == {}
    assert hard.delivery_info["routing_key"] == "ai.hard"
    assert bot.delivery_info["routing_key"] == "ai.bots"
    eta = _eta(hard)
    assert eta is not None
    slack = timedelta(milliseconds=5)
    assert start + timedelta(seconds=1.5) - slack <= eta <= end + timedelta(seconds=1.5) + slack
    assert _eta(bot) is None and _eta(easy) is None  # no delay: no eta


def test_a_human_turn_goes_to_the_maintenance_queue_for_when_its_time_is_out(
        memory_app: Celery) -> None:
    start = datetime.now(timezone.utc)
    CeleryScheduler(memory_app, 2.0).human_turn("game-4", 3, 12, 30.0)
    end = datetime.now(timezone.utc)
    got = _received(memory_app)
    assert list(got) == [MAINTENANCE_QUEUE] and len(got[MAINTENANCE_QUEUE]) == 1
    message = got[MAINTENANCE_QUEUE][0]
    assert message.headers["task"] == "president.turn_timeout"
    assert list(message.payload[0]) == ["game-4", 3, 12]
    assert message.delivery_info["routing_key"] == MAINTENANCE_QUEUE
    eta = _eta(message)
    assert eta is not None
    assert start + timedelta(seconds=29.99) <= eta <= end + timedelta(seconds=30.01)


def test_a_long_time_limit_is_left_to_the_sweeper_and_every_turn_expires_after_it_is_due(
        memory_app: Celery) -> None:
    """The expiry counts from the hand-over, plus the delay, plus ``turn_expires_s`` (the
    store moved the turn's due time with a late hand-over: the sweeper waits for it)."""
    scheduler = CeleryScheduler(memory_app, 2.0)
    start = datetime.now(timezone.utc)
    scheduler.human_turn("game-6", 0, 1, COUNTDOWN_LIMIT_S + 1)  # not held for hours
    scheduler.ai_turn("game-7", 1, 2, "easy", 1.5)
    scheduler.human_turn("game-8", 3, 4, 30.0)
    end = datetime.now(timezone.utc)
    got = _received(memory_app)
    assert sorted(got) == sorted(["ai.easy", MAINTENANCE_QUEUE])
    slack = timedelta(milliseconds=5)
    for queue, after_s in (("ai.easy", 1.5 + 2.0), (MAINTENANCE_QUEUE, 30 + 2.0)):
        expires = datetime.fromisoformat(got[queue][0].headers["expires"])
        assert start + timedelta(seconds=after_s) - slack <= expires \
            <= end + timedelta(seconds=after_s) + slack


@pytest.mark.skipif(REDIS_URL is None, reason="PRESIDENT_TEST_REDIS_URL is not set (.ci/run "
                    "sets it)")
def test_on_redis_a_resent_turn_is_served_before_every_new_one_of_every_queue() -> None:
    """The sweeper's copies go first: the new turns were handed over before them."""
    import redis

    url = f"{REDIS_URL.rstrip('/')}/0"  # (keys of this test's own, by their prefix)
    prefix = f"test-priority-{uuid4().hex}:"
    app = make_celery(TurnSettings.from_env({}, broker_url=url))
    app.conf.broker_transport_options = {"global_keyprefix": prefix}
    scheduler = CeleryScheduler(app, 60.0)
    scheduler.ai_turn("new-easy", 1, 1, "easy")
    scheduler.ai_turn("new-hard", 1, 1, "hard")
    scheduler.human_turn("new-human", 1, 1, 60.0)
    CeleryWebhooks(app, 60.0).deliver("webhook", 1)  # (every other task: as new turns)
    scheduler.ai_turn("resent-hard", 1, 1, "hard", resent=True)
    scheduler.human_turn("resent-human", 1, 1, 0.0, resent=True)
    served: list[str] = []

    def take(body: Any, message: Any) -> None:
        served.append(body[0][0])
        message.ack()

    try:
        with app.connection_for_read() as conn, conn.Consumer(
                # (the webhooks queue named before the resent turns': only the
                # priority puts them first)
                [Queue(name) for name in reversed(DEFAULT_QUEUES)], callbacks=[take],
                accept=["json"]):
            while len(served) < 6:
                conn.drain_events(timeout=5)
    finally:
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)
    assert sorted(served[:2]) == ["resent-hard", "resent-human"]
    assert sorted(served[2:]) == ["new-easy", "new-hard", "new-human", "webhook"]


def test_an_unreachable_broker_raises_and_the_relay_keeps_the_messages() -> None:
    unreachable = TurnSettings.from_env({}, broker_url="redis://127.0.0.1:1/0")
    scheduler = CeleryScheduler(make_celery(unreachable), 2.0)
    db = FakeDatabase()
    create_dealt(CreateGame("classic", (SeatSpec("ai", "easy"),) * 4, seed=1), db.uow(), LEVELS)
    waiting = list(db.outbox)
    assert len(waiting) == 1
    with pytest.raises(Exception):  # kombu's error, once its few quick retries are spent
        relay(db.uow(), scheduler)
    assert db.outbox == waiting  # still there, for the next attempt


# --- the backoff -----------------------------------------------------------------------------


def test_backoff_is_jittered_within_its_exponential_cap() -> None:
    settings = TurnSettings.from_env({}, retry_base_s=0.1, retry_cap_s=1.0)
    for attempt in range(12):
        ceiling = min(settings.retry_cap_s, settings.retry_base_s * 2 ** attempt)
        draws = [backoff(attempt, settings) for _ in range(300)]
        assert all(0 <= d <= ceiling for d in draws), attempt
        assert len(set(draws)) > 250  # random, not a constant
        assert max(draws) > ceiling * 0.8  # and it does use the whole range
    assert max(backoff(40, settings) for _ in range(300)) <= 1.0  # capped, no overflow


# --- the ai_turn task, eagerly, on the real service layer ------------------------------------


class FlakyEngine:
    """An AI engine that fails ``failures`` times (with ``error``), then answers."""

    def __init__(self, error: Exception, failures: int = 10**6) -> None:
        self.error, self.failures = error, failures
        self.calls: list[tuple[int, str]] = []

    def __call__(self, view: View, engine: str) -> Action:
        self.calls.append((len(view.history), engine))
        if len(self.calls) <= self.failures:
            raise self.error
        return view.legal_actions[-1]  # not what the Easy level plays here (checked)


@dataclass
class Pipeline:
    app: Celery
    recorder: Told
    builds: list[Celery]
    uow_factory: UowFactory
    db: Engine

    def run(self, task: str, *args: Any) -> Any:
        """Send the task as the scheduler would; eager: it runs here, retries included."""
        return self.app.tasks[task].delay(*args).get()


@pytest.fixture
def pipeline(uow_factory: UowFactory, db: Engine,
             monkeypatch: pytest.MonkeyPatch) -> Callable[..., Pipeline]:
    def build(decide: Callable[[View, str], Action], ai_retries: int = 2) -> Pipeline:
        settings = TurnSettings.from_env(
            {}, broker_url="memory://", ai_retries=ai_retries, retry_base_s=0.001,
            retry_cap_s=0.002, turn_expires_s=2.0, ai_deadline_s=1.0)
        recorder, builds = Told(uow_factory), []

        def runtime(app_: Celery) -> TurnRuntime:
            builds.append(app_)
            return TurnRuntime(uow_factory, decide, FALLBACK)

        app = make_celery(settings, runtime)
        app.conf.task_always_eager = True
        return Pipeline(app, recorder, builds, uow_factory, db)
    return build


SEED = 8


def _ai_game(uow_factory: UowFactory, level: str = "hard") -> tuple[str, int]:
    created = create_dealt(CreateGame("classic", tuple(SeatSpec("ai", level) for _ in range(4)),
                                     seed=SEED), uow_factory(), engines=LEVELS)
    return created.game.game_id, created.game.view.to_act


def _the_moves(db: Engine, game_id: str) -> list[str]:
    with db.connect() as c:
        return list(c.scalars(select(ActionRow.action).where(ActionRow.game_id == game_id)
                              .order_by(ActionRow.seq)))


def _played_for(uow_factory: UowFactory, game_id: str) -> list[PlayedFor]:
    events, _ = events_after(game_id, None, 0, UowReads(uow_factory))
    return [e.event for e in events if isinstance(e.event, PlayedFor)]


def _easy_lead() -> Action:
    state = new_series(Rules.preset("classic", players=4), SEED)
    view = observe(state, state.to_act)
    easy = ai_decide(view, "easy", seed=len(view.history))
    assert easy != view.legal_actions[-1]  # so the engine's own answer can be told apart
    return easy


def test_an_engine_that_keeps_failing_is_retried_then_the_easy_level_plays(
        pipeline: Callable[..., Pipeline]) -> None:
    engine = FlakyEngine(AiUnavailable("UNAVAILABLE"))
    p = pipeline(engine, ai_retries=2)
    game_id, seat = _ai_game(p.uow_factory)

    assert p.run("president.ai_turn", game_id, seat, 0) == "played"

    assert engine.calls == [(0, "hard")] * 3  # the first attempt and two retries
    assert _the_moves(p.db, game_id) == [str(_easy_lead())]
    assert _played_for(p.uow_factory, game_id) == [PlayedFor(seat, "ai_failed", "easy")]
    events, _ = events_after(game_id, None, 0, UowReads(p.uow_factory))
    kinds = [type(e.event) for e in events]
    assert kinds[kinds.index(PlayedFor) + 1] is Played
    after = read_game(ReadGame(game_id), UowReads(p.uow_factory))
    assert p.recorder.calls[-1] == ("ai", game_id, after.view.to_act, 1, "hard", 0.0)
    assert p.builds == [p.app]  # one runtime per process
    # the same task delivered again plays nothing and asks no engine
    assert p.run("president.ai_turn", game_id, seat, 0) == "no longer this turn"
    assert len(engine.calls) == 3 and len(_the_moves(p.db, game_id)) == 1


def test_an_unknown_engine_falls_back_at_once(pipeline: Callable[..., Pipeline]) -> None:
    engine = FlakyEngine(UnknownEngine("no AI engine named 'hard'"))
    p = pipeline(engine, ai_retries=5)
    game_id, seat = _ai_game(p.uow_factory)
    assert p.run("president.ai_turn", game_id, seat, 0) == "played"
    assert len(engine.calls) == 1
    assert _the_moves(p.db, game_id) == [str(_easy_lead())]
    assert _played_for(p.uow_factory, game_id) == [PlayedFor(seat, "ai_failed", "easy")]


def test_an_engine_that_fails_once_then_answers_plays_its_own_answer(
        pipeline: Callable[..., Pipeline]) -> None:
    engine = FlakyEngine(AiUnavailable("DEADLINE_EXCEEDED"), failures=1)
    p = pipeline(engine, ai_retries=2)
    game_id, seat = _ai_game(p.uow_factory)
    lead = new_series(Rules.preset("classic", players=4), SEED)
    answer = observe(lead, seat).legal_actions[-1]
    assert answer != _easy_lead()

    assert p.run("president.ai_turn", game_id, seat, 0) == "played"
    assert len(engine.calls) == 2
    assert _the_moves(p.db, game_id) == [str(answer)]
    assert _played_for(p.uow_factory, game_id) == []


def test_a_database_error_is_retried_but_never_falls_back_to_easy(
        pipeline: Callable[..., Pipeline]) -> None:
    engine = FlakyEngine(OperationalError("SELECT 1", {}, Exception("database is locked")))
    p = pipeline(engine, ai_retries=2)
    game_id, seat = _ai_game(p.uow_factory)
    with pytest.raises(OperationalError):
        p.run("president.ai_turn", game_id, seat, 0)
    assert len(engine.calls) == 3
    assert _the_moves(p.db, game_id) == []
    assert _played_for(p.uow_factory, game_id) == []


def test_the_turn_timeout_and_sweep_tasks_call_the_service(
        pipeline: Callable[..., Pipeline]) -> None:
    p = pipeline(FlakyEngine(AiUnavailable("unused")))
    human = create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=SEED,
                                   turn_timeout_ms=60_000), p.uow_factory(), engines=LEVELS)
    game_id, seat = human.game.game_id, human.game.view.to_act
    assert p.run("president.turn_timeout", game_id, seat, 0) == "no longer this turn"  # early
    assert _the_moves(p.db, game_id) == []

    an_hour_ago = datetime.now(timezone.utc) - timedelta(hours=1)
    set_last_move(p.db, game_id, an_hour_ago)
    assert p.run("president.turn_timeout", game_id, seat, 0) == "played"
    assert _played_for(p.uow_factory, game_id) == [PlayedFor(seat, "turn_timeout", "easy")]
    nxt = read_game(ReadGame(game_id), UowReads(p.uow_factory)).view.to_act
    assert p.recorder.calls[-1][:4] == ("human", game_id, nxt, 1)

    ai_game, ai_seat = _ai_game(p.uow_factory)
    p.recorder.calls.clear()
    assert p.run("president.sweep") == {"ai_turns": 0, "timeouts": 0}  # all recent
    set_last_move(p.db, ai_game, an_hour_ago)
    assert p.run("president.sweep") == {"ai_turns": 1, "timeouts": 0}
    assert p.recorder.calls == [("ai", ai_game, ai_seat, 0, "hard", 0.0)]


# --- the embedded broker ---------------------------------------------------------------------


def test_create_tables_makes_the_brokers_tables_in_a_fresh_process(tmp_path: Path) -> None:
    """``president broker init`` (and ``_celery_app``) run it once, before the workers
    start, so that they do not race to create the tables: in a process that has not yet
    opened a kombu channel, as theirs is."""
    url = f"sqla+sqlite:///{tmp_path}/var/broker.db"
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from workers.turns import embedded; "
                               "embedded.create_tables(sys.argv[1])", url],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    database = create_engine(url.removeprefix("sqla+"))
    try:
        with database.connect() as c:
            assert c.scalar(text("PRAGMA journal_mode")) == "wal"
        assert {"kombu_queue", "kombu_message"} <= set(inspect(database).get_table_names())
    finally:
        database.dispose()
    assert embedded.cleanup(url) == 0


def test_cleanup_deletes_the_consumed_messages_only(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    transport = sqla_transport.Transport
    monkeypatch.setattr(transport, "polling_interval", 0.01)  # restored after
    url = f"sqla+sqlite:///{tmp_path}/var/broker.db"
    embedded.create_tables(url)
    with Connection(url) as conn:
        queue = conn.SimpleQueue("cleanup-test")
        for n in range(3):
            queue.put({"n": n})
        for n in range(2):
            message = queue.get(timeout=5)
            assert message.payload == {"n": n}
            message.ack()
        queue.close()

    database = create_engine(url.removeprefix("sqla+"))
    try:
        with database.connect() as c:
            assert c.scalar(text("SELECT count(*) FROM kombu_message")) == 3
        assert embedded.cleanup(url) == 2
        assert embedded.cleanup(url) == 0
        with database.connect() as c:
            assert c.execute(text("SELECT visible FROM kombu_message")).scalars().all() \
                == [True]
    finally:
        database.dispose()
    with Connection(url) as conn:  # the one left is still delivered
        queue = conn.SimpleQueue("cleanup-test")
        message = queue.get(timeout=5)
        assert message.payload == {"n": 2}
        message.ack()
        queue.close()
    assert embedded.cleanup(url) == 1
