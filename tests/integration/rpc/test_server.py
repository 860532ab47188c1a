"""The AI worker served in-process: answers, health and reflection, rejected requests,
deadlines, the client's distrust, and a third-party bot behind the same client."""

from __future__ import annotations

import importlib.util
import math
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Iterator

import grpc
import pytest
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from benchmarks.ports import free_port
from engine import ALL_CARDS, Give, Phase, Play, Rules, View, cards_of, observe
from engine.determinize import hidden_cards
from president.ai.v1 import ai_pb2 as pb
from president.ai.v1 import ai_pb2_grpc
from rpchelpers import (
    altered, set_field,
    ROOT, ai_server, choice_views, sampled_states, servicer_server, worker_process,
)
from workers.ai import DEFAULT_BUDGETS, LEVELS, Budget, analyse, decide
from workers.rpc.client import (
    DEFAULT_ENGINES, ENGINES_ENV, AiClient, AiError, AiUnavailable, UnknownEngine,
    UntrustedAnswer, engines_from_env, parse_engines,
)
from workers.rpc.server import (
    DEADLINE_SHARE, MINIMUM_MS, RESERVE_MS, SERVICE_NAME, AiServicer, build_server,
    fit_to_deadline,
)
from workers.rpc.serde import request_to_proto, view_from_proto

SMALL = Budget(simulations=20)
VIEWS = choice_views(10, seed=4)


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    with ai_server() as address:
        yield address


@pytest.fixture(scope="module")
def stub(target: str) -> Iterator[ai_pb2_grpc.AiServiceStub]:
    with grpc.insecure_channel(target) as channel:
        yield ai_pb2_grpc.AiServiceStub(channel)


@pytest.fixture(scope="module")
def client(target: str) -> Iterator[AiClient]:
    with AiClient({level: target for level in LEVELS}) as c:
        yield c


def exchange_view() -> View:
    for state in sampled_states(Rules.preset("classic", players=4, rounds=2), 21, 0.0):
        if state.phase is Phase.EXCHANGE:
            return observe(state, state.to_act)
    raise AssertionError("no exchange decision in that series")


EXCHANGE_VIEW = exchange_view()


# --- answers --------------------------------------------------------------------------


def test_the_views_hold_choices_of_every_kind() -> None:
    assert len({v.rules for v in VIEWS}) >= 4
    assert any(v.round_no == 2 for v in VIEWS)
    assert isinstance(EXCHANGE_VIEW.legal_actions[0], Give)
    assert len(EXCHANGE_VIEW.legal_actions) > 1


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_answers_a_legal_action(client: AiClient, level: str) -> None:
    budget = SMALL if level in DEFAULT_BUDGETS else None
    for seed, view in enumerate([*VIEWS, EXCHANGE_VIEW]):
        action = client.decide(view, level, seed=seed, budget=budget, timeout_s=30)
        assert action in view.legal_actions
        # counted in simulations a decision is deterministic: the worker decides as the
        # level does in-process, from the same view
        assert action == decide(view, level, seed=seed, budget=budget)


def test_the_searching_levels_answer_with_their_default_budget(client: AiClient) -> None:
    view = VIEWS[0]
    assert client.decide(view, "hard", timeout_s=30) in view.legal_actions


def test_the_raw_stub_answers_canonical_text(stub: ai_pb2_grpc.AiServiceStub) -> None:
    for view in VIEWS[:4]:
        reply = stub.Decide(request_to_proto(view, "normal", 0), timeout=30)
        assert reply.action in {str(a) for a in view.legal_actions}


def test_concurrent_calls_are_answered(target: str) -> None:
    results: dict[int, Any] = {}

    def call(i: int) -> None:
        with AiClient({"hard": target}) as c:
            try:
                results[i] = (c.decide(VIEWS[i], "hard", seed=i, budget=SMALL, timeout_s=30),
                              VIEWS[i])
            except AiError as exc:  # reported below, with the others
                results[i] = exc

    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 6
    for value in results.values():
        assert not isinstance(value, Exception), value
        action, view = value
        assert action in view.legal_actions


# --- health and reflection ---------------------------------------------------------------


def test_health_is_serving_for_the_server_and_the_service(target: str) -> None:
    with grpc.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "president.ai.v1.AiService"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as raised:
            health.Check(health_pb2.HealthCheckRequest(service="no.Such"), timeout=5)
        assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    assert SERVICE_NAME == "president.ai.v1.AiService"


def test_reflection_lists_and_describes_the_service(target: str) -> None:
    with grpc.insecure_channel(target) as channel:
        database = ProtoReflectionDescriptorDatabase(channel)
        services = set(database.get_services())
        assert {"president.ai.v1.AiService", "grpc.health.v1.Health"} <= services
        service = DescriptorPool(database).FindServiceByName("president.ai.v1.AiService")
        decide_method = service.methods_by_name["Decide"]
        assert decide_method.input_type.full_name == "president.ai.v1.DecideRequest"
        assert decide_method.output_type.full_name == "president.ai.v1.DecideResponse"
        assert "legal_actions" in decide_method.input_type.fields_by_name[
            "view"].message_type.fields_by_name


# --- rejected requests ---------------------------------------------------------------------


def play_request() -> pb.DecideRequest:
    """A real round-2 play decision with a choice, a discard and a trick."""
    for state in sampled_states(Rules.preset("classic", players=4, rounds=2), 31, 0.5):
        view = observe(state, state.to_act)
        if view.round_no == 2 and view.phase is Phase.PLAY and len(view.legal_actions) > 2 \
                and view.discard and view.exchanges:
            return request_to_proto(view, "normal", 0)
    raise AssertionError("no such position")


BASE = play_request()


def free_card(request: pb.DecideRequest) -> str:
    """A card of another seat's hand (neither in this hand, on the table nor discarded)."""
    view = observe_back(request)
    hidden = hidden_cards(view)
    return str(cards_of(hidden & -hidden)[0])


def observe_back(request: pb.DecideRequest) -> View:
    """The engine view a request carries."""
    return view_from_proto(request.view)


def spoiled(change: Callable[[pb.DecideRequest], object]) -> pb.DecideRequest:
    return altered(BASE, change)


_set = set_field


def _bump_other_size(r: pb.DecideRequest) -> None:
    other = (r.view.seat + 1) % len(r.view.hand_sizes)
    r.view.hand_sizes[other] += 1


def _play_phase_as_exchange(r: pb.DecideRequest) -> None:
    r.view.phase = pb.PHASE_EXCHANGE


def _exchange_to_a_missing_seat(r: pb.DecideRequest) -> None:
    r.view.exchanges.add(giver=r.view.seat, receiver=len(r.view.hand_sizes) + 2, count=1,
                         cards=[r.view.discard[0]], cards_known=True)


# name: (how the real request is spoiled, words the error details must hold)
BAD: dict[str, tuple[Callable[[pb.DecideRequest], object], str]] = {
    "unknown level": (lambda r: _set(r, "level", "grandmaster"), "unknown level 'grandmaster'"),
    "no legal actions": (lambda r: r.view.ClearField("legal_actions"), "no legal action"),
    "malformed card in hand": (lambda r: r.view.hand.__setitem__(0, "ZZ"), "ZZ"),
    "a legal action removed": (lambda r: r.view.legal_actions.pop(), "missing"),
    "a bogus legal action added":
        (lambda r: r.view.legal_actions.append(free_card(r)), "not legal"),
    "hand_sizes wrong for this seat":
        (lambda r: r.view.hand_sizes.__setitem__(r.view.seat, len(r.view.hand) + 1),
         "hand_sizes"),
    "hand_sizes wrong for another seat": (_bump_other_size, "do not add up"),
    "hand_sizes for the wrong table": (lambda r: r.view.hand_sizes.append(0), "hand_sizes"),
    "a card in the hand and the discard":
        (lambda r: r.view.discard.append(r.view.hand[0]), "discard"),
    "another seat to act":
        (lambda r: _set(r.view, "to_act", (r.view.seat + 1) % len(r.view.hand_sizes)),
         "to act"),
    "an empty request": (lambda r: r.Clear(), "no view"),
    "a seat beyond the table":
        (lambda r: (_set(r.view, "seat", 9), _set(r.view, "to_act", 9)), "seat 9"),
    "the series is over": (lambda r: _set(r.view, "phase", pb.PHASE_OVER), "over"),
    "a negative budget":
        (lambda r: r.budget.CopyFrom(pb.Budget(milliseconds=-5)), "milliseconds"),
    # found by fuzzing: these crash check_view with an IndexError (status UNKNOWN)
    "the exchange phase with nothing owed": (_play_phase_as_exchange, ""),
    "an exchange with a seat beyond the table": (_exchange_to_a_missing_seat, ""),
}


def test_the_base_request_is_answered(stub: ai_pb2_grpc.AiServiceStub) -> None:
    reply = stub.Decide(BASE, timeout=10)
    assert reply.action in set(BASE.view.legal_actions)


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_requests_are_invalid_arguments_and_the_server_keeps_serving(
        stub: ai_pb2_grpc.AiServiceStub, name: str) -> None:
    change, words = BAD[name]
    with pytest.raises(grpc.RpcError) as raised:
        stub.Decide(spoiled(change), timeout=10)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT, raised.value.details()
    assert words in raised.value.details()
    assert "Exception calling application" not in raised.value.details()
    reply = stub.Decide(BASE, timeout=10)  # still serving
    assert reply.action in set(BASE.view.legal_actions)


def test_legal_actions_that_do_not_fit_are_counted_not_named(
        stub: ai_pb2_grpc.AiServiceStub) -> None:
    """The details reach the caller's logs and spans: they name none of the seat's cards."""
    removed = BASE.view.legal_actions[-1]
    with pytest.raises(grpc.RpcError) as raised:
        stub.Decide(spoiled(lambda r: r.view.legal_actions.pop()), timeout=10)
    assert "1 legal missing" in raised.value.details()
    assert removed not in raised.value.details()
    assert not set(BASE.view.hand) & set(raised.value.details().replace(",", " ").split())


def test_a_non_finite_time_budget_does_not_wedge_the_worker() -> None:
    """A peer can send any double. A NaN budget must be refused or capped by the deadline;
    it must not leave the worker's threads searching forever (each worker has 4)."""
    nan = pb.DecideRequest()
    nan.CopyFrom(BASE)
    nan.level = "hard"
    nan.budget.CopyFrom(pb.Budget(milliseconds=math.nan))
    with worker_process(1, wait_s=3) as (_, address):
        with grpc.insecure_channel(address) as channel:
            raw = ai_pb2_grpc.AiServiceStub(channel)
            for _ in range(4):
                try:
                    reply = raw.Decide(nan, timeout=0.3)
                    assert reply.action in set(BASE.view.legal_actions)
                except grpc.RpcError as exc:
                    assert exc.code() in (grpc.StatusCode.INVALID_ARGUMENT,
                                          grpc.StatusCode.DEADLINE_EXCEEDED), exc.details()
            reply = raw.Decide(BASE, timeout=5)  # a Normal call after them
            assert reply.action in set(BASE.view.legal_actions)


# --- deadlines -----------------------------------------------------------------------------


def test_a_long_budget_stops_at_a_short_deadline(client: AiClient) -> None:
    # (0.5 s, not less: a starved CPU under the parallel suite once stretched the last
    # simulation and the answer past a 0.1 s deadline's reserve)
    for view in VIEWS[:2]:
        action = client.decide(view, "hard", budget=Budget(milliseconds=10_000),
                               timeout_s=0.5)
        assert action in view.legal_actions


def test_a_deadline_too_short_to_answer_is_exceeded(stub: ai_pb2_grpc.AiServiceStub,
                                                      client: AiClient) -> None:
    request = request_to_proto(VIEWS[0], "hard", 0, Budget(milliseconds=10_000))
    with pytest.raises(grpc.RpcError) as raised:
        stub.Decide(request, timeout=0.001)
    assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    with pytest.raises(AiUnavailable) as failed:
        client.decide(VIEWS[0], "easy", timeout_s=0.001)
    assert failed.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    request.budget.CopyFrom(pb.Budget(simulations=20))
    assert stub.Decide(request, timeout=10).action  # and the server still answers


class Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code = code


class FakeContext:
    """A servicer context whose remaining time is scripted, one value per question."""

    def __init__(self, *remaining: float | None) -> None:
        self.remaining = list(remaining)
        self.asked = 0

    def time_remaining(self) -> float | None:
        self.asked += 1
        return self.remaining.pop(0) if len(self.remaining) > 1 else self.remaining[0]

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Aborted(code, details)


def test_the_servicer_answers_within_the_time_left() -> None:
    reply = AiServicer().Decide(BASE, FakeContext(5.0, 4.0))  # type: ignore[arg-type]
    assert reply.action in set(BASE.view.legal_actions)
    reply = AiServicer().Decide(BASE, FakeContext(None))  # type: ignore[arg-type]
    assert reply.action in set(BASE.view.legal_actions)


def test_the_servicer_searches_within_its_cap_whatever_the_request_asks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import workers.rpc.server as server

    used: list[Budget | None] = []

    def spy(view: object, level: str, *, seed: int, budget: Budget | None) -> object:
        used.append(budget)
        return decide(view, "easy", seed=seed)  # type: ignore[arg-type]

    monkeypatch.setattr(server, "decide", spy)
    greedy = request_to_proto(view_from_proto(BASE.view), "expert", 0,
                              Budget(simulations=10**9, milliseconds=10**8))
    cap = Budget(simulations=50, milliseconds=30.0)
    AiServicer(cap).Decide(greedy, FakeContext(None))  # type: ignore[arg-type]
    assert used == [cap]


def test_the_servicer_refuses_to_start_without_time() -> None:
    request = spoiled(lambda r: _set(r, "level", "hard"))
    with pytest.raises(Aborted) as raised:
        AiServicer().Decide(request, FakeContext(0.002))  # type: ignore[arg-type]
    assert raised.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_the_servicer_never_sends_a_late_reply() -> None:
    """Time ran out while deciding: DEADLINE_EXCEEDED, not the answer."""
    for remaining_after in (0.0, -0.5):
        with pytest.raises(Aborted) as raised:
            AiServicer().Decide(BASE, FakeContext(5.0, remaining_after))  # type: ignore[arg-type]
        assert raised.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_the_servicer_checks_before_it_decides() -> None:
    with pytest.raises(Aborted) as raised:
        AiServicer().Decide(spoiled(lambda r: r.view.legal_actions.pop()),  # type: ignore[arg-type]
                            FakeContext(5.0))
    assert raised.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_fit_to_deadline_without_a_deadline_keeps_the_budget() -> None:
    budget = Budget(simulations=7, milliseconds=123.0)
    assert fit_to_deadline("hard", budget, None) == budget
    assert fit_to_deadline("hard", None, None) == DEFAULT_BUDGETS["hard"]
    assert fit_to_deadline("easy", None, None) is None


def test_no_request_makes_a_level_think_past_the_worker_s_cap() -> None:
    cap = Budget(simulations=100, milliseconds=40.0)
    greedy = Budget(simulations=10**9, milliseconds=10**9)
    for remaining in (None, 3600.0):  # no deadline, or a very long one
        assert fit_to_deadline("expert", greedy, remaining, cap) == cap
        assert fit_to_deadline("expert", None, remaining, cap) == Budget(
            simulations=100, milliseconds=40.0)  # the default (500 ms) capped too
    modest = Budget(simulations=10, milliseconds=5.0)
    assert fit_to_deadline("hard", modest, None, cap) == modest
    assert fit_to_deadline("easy", greedy, None, cap) == cap  # (Easy ignores budgets)


def test_reflection_can_be_turned_off() -> None:
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    for on in (True, False):
        server, port = build_server("127.0.0.1:0", reflection_on=on)
        server.start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = reflection_pb2_grpc.ServerReflectionStub(channel)
                request = reflection_pb2.ServerReflectionRequest(list_services="")
                if on:
                    reply = next(stub.ServerReflectionInfo(iter([request]), timeout=5))
                    assert reply.list_services_response.service
                else:
                    with pytest.raises(grpc.RpcError) as refused:
                        next(stub.ServerReflectionInfo(iter([request]), timeout=5))
                    assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
        finally:
            server.stop(0)


def test_fit_to_deadline_caps_the_milliseconds() -> None:
    capped = fit_to_deadline("hard", Budget(milliseconds=10_000), 0.1)
    assert capped is not None and capped.simulations is None
    assert capped.milliseconds == pytest.approx(100 * DEADLINE_SHARE - RESERVE_MS)
    # a budget shorter than the time left is kept, simulations too
    assert fit_to_deadline("hard", Budget(simulations=50, milliseconds=20), 5.0) == \
        Budget(simulations=50, milliseconds=20)
    # a simulations-only budget gets the time left as its time limit
    fitted = fit_to_deadline("expert", Budget(simulations=50), 0.5)
    assert fitted is not None and fitted.simulations == 50
    assert fitted.milliseconds == pytest.approx(500 * DEADLINE_SHARE - RESERVE_MS)


def test_fit_to_deadline_uses_the_level_default_under_the_deadline() -> None:
    for level, default in DEFAULT_BUDGETS.items():
        assert default.milliseconds is not None
        roomy = fit_to_deadline(level, None, 60.0)
        assert roomy == Budget(simulations=default.simulations,
                               milliseconds=default.milliseconds)
        tight = fit_to_deadline(level, None, 0.010)
        assert tight is not None and tight.milliseconds == pytest.approx(
            10 * DEADLINE_SHARE - RESERVE_MS)


def test_fit_to_deadline_refuses_too_little_time() -> None:
    enough = (RESERVE_MS + MINIMUM_MS) / DEADLINE_SHARE / 1000
    too_little = enough * 0.99
    for level in LEVELS:
        for remaining in (too_little, 0.0, -1.0):
            with pytest.raises(TimeoutError):
                fit_to_deadline(level, Budget(milliseconds=500), remaining)
    assert fit_to_deadline("hard", None, enough * 1.01) is not None


def test_fit_to_deadline_gives_easy_and_normal_no_budget() -> None:
    for level in ("easy", "normal"):
        assert fit_to_deadline(level, None, 5.0) is None
        assert fit_to_deadline(level, None, 0.01) is None


@pytest.mark.parametrize("ms", [math.inf, math.nan, -1.0, 0.0])
def test_a_budget_must_be_a_positive_finite_time(ms: float) -> None:
    with pytest.raises(ValueError):
        Budget(milliseconds=ms)


# --- the client never trusts the answer ---------------------------------------------------


class Scripted(ai_pb2_grpc.AiServiceServicer):
    """A bot that answers what it is told to, and counts its calls."""

    def __init__(self, answer: Callable[[pb.DecideRequest], str]) -> None:
        self.answer = answer
        self.calls = 0

    def Decide(self, request: pb.DecideRequest, context: grpc.ServicerContext
               ) -> pb.DecideResponse:
        self.calls += 1
        return pb.DecideResponse(action=self.answer(request))


def not_legal(request: pb.DecideRequest) -> str:
    legal = set(request.view.legal_actions)
    hand = list(request.view.hand)
    for candidate in ["pass", *hand, free_card(request)]:
        if candidate not in legal:
            return candidate
    raise AssertionError("every candidate is legal")


UNTRUSTED: dict[str, Callable[[pb.DecideRequest], str]] = {
    "a play that is not legal": not_legal,
    "another seat's card": free_card,
    "garbage": lambda r: "garbage!!",
    "an unknown card": lambda r: "ZZ",
    "nothing": lambda r: "",
    "a gift in the play phase": lambda r: "give " + r.view.hand[0],
}


@pytest.mark.parametrize("name", sorted(UNTRUSTED))
def test_the_client_refuses_an_untrusted_answer(name: str) -> None:
    bot = Scripted(UNTRUSTED[name])
    view = observe_back(BASE)
    with servicer_server(bot) as address, AiClient({"bot": address}) as c:
        with pytest.raises(UntrustedAnswer):
            c.decide(view, "bot", timeout_s=10)
    assert bot.calls == 1


def test_the_client_accepts_a_legal_answer_from_any_bot() -> None:
    """The control for the refusals: the same scripted bot, answering a legal action."""
    bot = Scripted(lambda r: r.view.legal_actions[-1])
    view = observe_back(BASE)
    with servicer_server(bot) as address, AiClient({"bot": address}) as c:
        assert c.decide(view, "bot", timeout_s=10) == view.legal_actions[-1]


def test_the_client_reports_a_failing_engine_as_unavailable() -> None:
    class Failing(ai_pb2_grpc.AiServiceServicer):
        def Decide(self, request: pb.DecideRequest, context: grpc.ServicerContext
                   ) -> pb.DecideResponse:
            context.abort(grpc.StatusCode.INTERNAL, "the bot broke")
            raise AssertionError

    with servicer_server(Failing()) as address, AiClient({"bot": address}) as c:
        with pytest.raises(AiUnavailable) as raised:
            c.decide(observe_back(BASE), "bot", timeout_s=10)
    assert raised.value.code == grpc.StatusCode.INTERNAL
    assert "the bot broke" in str(raised.value)


def test_an_invalid_argument_from_the_worker_is_reported(client: AiClient) -> None:
    with pytest.raises(AiUnavailable) as raised:
        client.decide(_not_my_turn(), "easy", timeout_s=10)
    assert raised.value.code == grpc.StatusCode.INVALID_ARGUMENT


def _not_my_turn() -> View:
    state = sampled_states(Rules.preset("classic", players=4), 41, 0.2)[2]
    return observe(state, (state.to_act + 1) % 4)


def test_an_unknown_engine_is_refused_without_dialling(monkeypatch: pytest.MonkeyPatch) -> None:
    dialled: list[str] = []
    monkeypatch.setattr(grpc, "insecure_channel", lambda target, *a, **k: dialled.append(target))
    c = AiClient({"easy": "127.0.0.1:1"})
    with pytest.raises(UnknownEngine) as raised:
        c.decide(VIEWS[0], "mybot", timeout_s=1)
    assert dialled == []
    assert "mybot" in str(raised.value) and "easy" in str(raised.value)
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, AiError)


def test_an_unreachable_engine_is_unavailable() -> None:
    with AiClient({"easy": f"127.0.0.1:{free_port()}"}) as c:
        with pytest.raises(AiUnavailable) as raised:
            c.decide(VIEWS[0], "easy", timeout_s=2)
    assert raised.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def test_the_default_engines_are_the_four_levels_on_the_local_worker() -> None:
    assert AiClient().engines == DEFAULT_ENGINES == {
        level: "127.0.0.1:50051" for level in ("easy", "normal", "hard", "expert")}


def test_parse_engines() -> None:
    assert parse_engines("") == {}
    assert parse_engines(" , ,") == {}
    assert parse_engines("easy=127.0.0.1:50051,mybot=bots.internal:6000") == {
        "easy": "127.0.0.1:50051", "mybot": "bots.internal:6000"}
    assert parse_engines(" hard = 10.0.0.2:7000 , v6=[::1]:50051,") == {
        "hard": "10.0.0.2:7000", "v6": "[::1]:50051"}
    assert parse_engines("a=h:1,a=h:2") == {"a": "h:2"}


@pytest.mark.parametrize("text", ["easy", "easy=", "=127.0.0.1:1", "easy=  ", " = ",
                                  "good=h:1,bad"])
def test_parse_engines_rejects_bad_entries(text: str) -> None:
    with pytest.raises(ValueError, match="name=host:port"):
        parse_engines(text)


def test_engines_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    assert engines_from_env({}) == DEFAULT_ENGINES
    merged = engines_from_env({ENGINES_ENV: "hard=10.0.0.2:7000,greedy=bots:6000"})
    assert merged == {**DEFAULT_ENGINES, "hard": "10.0.0.2:7000", "greedy": "bots:6000"}
    with pytest.raises(ValueError):
        engines_from_env({ENGINES_ENV: "greedy"})
    monkeypatch.setenv(ENGINES_ENV, "expert=elsewhere:1")
    assert engines_from_env()["expert"] == "elsewhere:1"
    monkeypatch.delenv(ENGINES_ENV)
    assert engines_from_env() == DEFAULT_ENGINES


# --- a third-party bot -------------------------------------------------------------------


def third_party_bot() -> ModuleType:
    path = ROOT / "examples" / "third_party_bot.py"
    spec = importlib.util.spec_from_file_location("third_party_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BOT = third_party_bot()


def test_the_example_bot_uses_only_the_generated_code() -> None:
    source = Path(BOT.__file__).read_text()
    assert "from engine" not in source and "import engine" not in source
    assert "from workers" not in source


def test_the_example_bot_answers_legal_actions_through_the_client() -> None:
    with servicer_server(BOT.GreedyBot()) as address, AiClient({"greedy": address}) as c:
        for view in [*VIEWS, EXCHANGE_VIEW]:
            action = c.decide(view, "greedy", timeout_s=10)
            assert action in view.legal_actions
            # its policy: the first of the plays that shed the most cards
            assert action == max(view.legal_actions,
                                 key=lambda a: 0 if isinstance(a, Give) else a.size)


def test_the_example_bot_serves_on_its_own_port() -> None:
    port = free_port()
    server = BOT.serve(port)
    try:
        with AiClient({"greedy": f"127.0.0.1:{port}"}) as c:
            view = VIEWS[1]
            assert c.decide(view, "greedy", timeout_s=10) in view.legal_actions
    finally:
        server.stop(None)


def test_the_example_bot_refuses_a_request_without_legal_actions() -> None:
    with servicer_server(BOT.GreedyBot()) as address, grpc.insecure_channel(address) as ch:
        with pytest.raises(grpc.RpcError) as raised:
            ai_pb2_grpc.AiServiceStub(ch).Decide(pb.DecideRequest(), timeout=10)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT



# --- what a level weighed (hints, reviews) ----------------------------------------------


@pytest.mark.parametrize("level", ["hard", "expert"])
def test_a_searching_level_reports_its_candidates_over_grpc(client: AiClient,
                                                            level: str) -> None:
    view = VIEWS[0]
    action, weighed = client.analyse(view, level, seed=3, budget=SMALL, timeout_s=30)
    assert (action, weighed) == analyse(view, level, seed=3, budget=SMALL)  # as in-process
    assert action == client.decide(view, level, seed=3, budget=SMALL, timeout_s=30)
    assert all(w.action in view.legal_actions and w.simulations >= 0 for w in weighed)


def test_a_heuristic_level_reports_no_candidates(client: AiClient) -> None:
    assert client.analyse(VIEWS[0], "normal", timeout_s=30)[1] == ()


def test_the_action_a_review_asks_for_is_weighed_over_grpc(client: AiClient) -> None:
    view = next(v for v in VIEWS if isinstance(v.legal_actions[0], Play)
                and len(v.legal_actions) > 2)
    taken = view.legal_actions[-1]
    action, weighed = client.analyse(view, "expert", seed=3, budget=SMALL, timeout_s=30,
                                     also=taken)
    assert (action, weighed) == analyse(view, "expert", seed=3, budget=SMALL, also=taken)
    assert taken in {w.action for w in weighed}


def test_an_action_to_weigh_that_is_not_legal_is_refused(
        stub: ai_pb2_grpc.AiServiceStub) -> None:
    view = VIEWS[1]
    request = request_to_proto(view, "expert", 0, SMALL, explain=True)
    not_held = next(card for card in ALL_CARDS if card not in view.hand)
    for bad in (str(not_held), "not a card"):
        request.weigh_also = bad
        with pytest.raises(grpc.RpcError) as caught:
            stub.Decide(request, timeout=30)
        assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT


class Weighing(Scripted):
    """A bot that reports a candidate of its choosing beside a legal action."""

    def __init__(self, candidate: Callable[[pb.DecideRequest], pb.Candidate]) -> None:
        super().__init__(lambda r: r.view.legal_actions[0])
        self.candidate = candidate

    def Decide(self, request: pb.DecideRequest, context: grpc.ServicerContext
               ) -> pb.DecideResponse:
        answer = super().Decide(request, context)
        answer.candidates.append(self.candidate(request))
        return answer


@pytest.mark.parametrize("candidate", [
    lambda r: pb.Candidate(action=not_legal(r), expected_points=1.0, simulations=1),
    lambda r: pb.Candidate(action=r.view.legal_actions[0], expected_points=float("nan")),
    lambda r: pb.Candidate(action=r.view.legal_actions[0], expected_points=-1.0),
    lambda r: pb.Candidate(action="garbage!!"),
], ids=["not legal", "nan points", "negative points", "garbage"])
def test_the_client_refuses_an_untrusted_candidate(
        candidate: Callable[[pb.DecideRequest], pb.Candidate]) -> None:
    bot = Weighing(candidate)
    view = observe_back(BASE)
    with servicer_server(bot) as address, AiClient({"bot": address}) as c:
        with pytest.raises(UntrustedAnswer):
            c.analyse(view, "bot", timeout_s=10)
        assert c.decide(view, "bot", timeout_s=10) in view.legal_actions  # (not asked)
