"""Shared helpers for the gRPC worker tests: real game positions, servers run in-process,
and a walk over every card text a protobuf message carries.

Positions come from real series (``new_series`` then random legal actions), so views hold
exchanges (rounds 2+), revolutions, straights and jokers wherever the rules allow them.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from engine import (
    PRESETS, Action, Card, Phase, Rules, State, View, apply, legal_actions, new_series,
    observe, parse_card,
)
from president.ai.v1 import ai_pb2 as pb
from president.ai.v1 import ai_pb2_grpc
from workers.rpc.client import wait_serving
from workers.rpc.server import build_server

ROOT = Path(__file__).resolve().parents[1]

PRESET_NAMES = tuple(sorted(PRESETS))


def table_rules(rounds: int = 3) -> list[Rules]:
    """Every preset at a few table sizes, plus jokers / straights / revolution where a
    preset leaves them off, so that every kind of play and card shows up."""
    out = []
    for name in PRESET_NAMES:
        top = PRESETS[name].max_players
        for players in sorted({3, 4, min(5, top), top}):
            out.append(Rules.preset(name, players=players, rounds=rounds))
        out.append(Rules.preset(name, players=4, rounds=rounds, jokers=2, straights=True,
                                revolution=True))
    return out


def random_action(state: State, rng: random.Random, pass_bias: float = 0.25) -> Action:
    """A random legal action; often the biggest play, so that quads (revolutions) and
    straights come up."""
    actions = list(legal_actions(state))
    plays = [a for a in actions if a]
    if len(plays) < len(actions) and (not plays or rng.random() < pass_bias):
        return next(a for a in actions if not a)
    if rng.random() < 0.4:
        return max(plays, key=lambda a: a.size)
    return rng.choice(plays)


def game_states(rules: Rules, seed: int) -> Iterator[State]:
    """Every state of one series played with random legal actions, up to its end (the
    ended state excluded)."""
    state = new_series(rules, seed)
    rng = random.Random(seed)
    while not state.is_over:
        yield state
        state, _ = apply(state, random_action(state, rng))


def _rare(state: State) -> bool:
    return state.phase is Phase.EXCHANGE or any(p.is_straight for _, p in state.trick)


def sampled_states(rules: Rules, seed: int, share: float) -> list[State]:
    """About ``share`` of one series' states; every exchange-phase state and every state
    with a straight on the table (there are few), and more of those in a revolution."""
    rng = random.Random(seed * 7919 + 1)
    return [s for s in game_states(rules, seed)
            if _rare(s) or rng.random() < (max(share, 0.2) if s.reversed else share)]


def acting_views(count_per_rules: int, seed: int = 0, rounds: int = 3) -> list[View]:
    """Views of the seat to act, from real series over ``table_rules``."""
    views: list[View] = []
    for i, rules in enumerate(table_rules(rounds)):
        states = sampled_states(rules, seed + i, 0.5)
        rng = random.Random(seed + i)
        chosen = rng.sample(states, min(count_per_rules, len(states)))
        # keep one exchange-phase decision per series when there is one
        chosen += [s for s in states if s.phase is Phase.EXCHANGE][:1]
        views.extend(observe(s, s.to_act) for s in chosen)
    return views


def choice_views(count: int, seed: int = 1) -> list[View]:
    """Acting views with at least two legal actions, two per series at most, across the
    presets (4 seats, 2 rounds: exchanges happen)."""
    views: list[View] = []
    rng = random.Random(seed)
    rules_list = [Rules.preset(name, players=4, rounds=2) for name in PRESET_NAMES]
    game = 0
    while len(views) < count:
        rules = rules_list[game % len(rules_list)]
        candidates = [observe(s, s.to_act) for s in game_states(rules, seed * 100 + game)]
        candidates = [v for v in candidates if len(v.legal_actions) > 1]
        views.extend(rng.sample(candidates, min(2, len(candidates), count - len(views))))
        game += 1
    return views


# --- servers ----------------------------------------------------------------------------


@contextmanager
def ai_server(threads: int = 4) -> Iterator[str]:
    """The real AI worker server (``build_server``), in-process on a free port."""
    server, port = build_server("127.0.0.1:0", threads=threads)
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


@contextmanager
def servicer_server(servicer: ai_pb2_grpc.AiServiceServicer) -> Iterator[str]:
    """Any AiService implementation, in-process on a free port."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    ai_pb2_grpc.add_AiServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    assert port
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


# --- worker processes -------------------------------------------------------------------


def child_pids(pid: int) -> list[int]:
    """The live children of ``pid``, from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return sorted(out)


def cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().split("\0")
    except OSError:
        return []


def worker_children(pid: int) -> list[int]:
    """The ``ai-worker`` server processes of a parent (not multiprocessing's resource
    tracker): the children started by multiprocessing's spawn."""
    return [c for c in child_pids(pid) if any("spawn_main" in part for part in cmdline(c))]


def stop_process_tree(proc: subprocess.Popen[str], kids: list[int], wait_s: float = 10) -> None:
    """SIGTERM the parent; if it does not exit in time, SIGKILL its workers (by pid, only
    while they are still multiprocessing children) and then the parent."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            pass
    for kid in kids:
        if any("spawn_main" in part for part in cmdline(kid)):
            try:
                os.kill(kid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=30)
    if proc.stdout is not None:
        proc.stdout.close()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _socket_inodes(pid: int) -> set[str]:
    out = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            out.add(link[len("socket:["):-1])
    return out


def tcp_sockets(port: int, state: str) -> dict[str, str]:
    """inode -> remote address of the TCP sockets bound locally to ``port`` in ``state``
    (/proc/net/tcp codes: "01" established, "0A" listening)."""
    out = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            lines = f.read().splitlines()[1:]
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == state:
                out[fields[9]] = fields[2]
    return out


def sockets_by_process(pids: list[int], port: int, state: str) -> dict[int, int]:
    """How many of the ``state`` sockets on ``port`` each process holds."""
    found = tcp_sockets(port, state)
    return {pid: len(_socket_inodes(pid) & set(found)) for pid in pids}


WORKER_COMMAND = [sys.executable, "-m", "president_cli.main", "ai-worker", "--port", "0"]


@contextmanager
def worker_process(processes: int, wait_s: float = 10) -> Iterator[tuple[subprocess.Popen[str],
                                                                          str]]:
    """A real ``president ai-worker`` subprocess, serving: (the parent process, target)."""
    proc = subprocess.Popen([*WORKER_COMMAND, "--processes", str(processes)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    kids: list[int] = []
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"listening on (\S+) with (\d+) process", line)
        assert found, f"unexpected first line {line!r}"
        assert int(found.group(2)) == processes
        kids = worker_children(proc.pid)
        wait_serving(found.group(1))
        if processes > 1:
            _wait_all_listening(proc.pid, processes, port_of(found.group(1)))
        kids = worker_children(proc.pid)
        yield proc, found.group(1)
    finally:
        stop_process_tree(proc, kids or worker_children(proc.pid), wait_s)


def port_of(target: str) -> int:
    return int(target.rsplit(":", 1)[1])


def _wait_all_listening(parent: int, processes: int, port: int, wait_s: float = 60) -> None:
    """Until each server process listens on the port: the first one answering health
    checks says nothing of the others, which a slow machine starts seconds later."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        kids = worker_children(parent)
        if len(kids) == processes and all(sockets_by_process(kids, port, "0A").values()):
            return
        time.sleep(0.05)
    raise AssertionError(f"{processes} server processes were not all listening in {wait_s} s")


# --- card texts in a message ------------------------------------------------------------

WORDS = frozenset({"pass", "give"})


def string_fields(message: Message, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string value anywhere in ``message`` as (field path, text): repeated fields
    and nested messages included, whatever their names."""
    for field, value in message.ListFields():
        here = f"{path}.{field.name}" if path else field.name
        repeated = field.is_repeated
        items = list(enumerate(value)) if repeated else [(None, value)]
        for index, item in items:
            where = here if index is None else f"{here}[{index}]"
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                yield from string_fields(item, where)
            elif field.type == FieldDescriptor.TYPE_STRING:
                yield where, item


def card_texts(text: str) -> list[Card] | None:
    """The cards named in an action or card text; None when the text is not made of card
    names (a level name, a rules option value)."""
    # a joker naming the card it stands for ("JR=7S", the suit lock) puts down the joker:
    # the named card is the player's choice of suit, not a card seen
    tokens = [t.split("=", 1)[0] for t in text.replace("-", " ").split()]
    cards = []
    for token in tokens:
        if token.lower() in WORDS:
            continue
        try:
            cards.append(parse_card(token))
        except ValueError:
            return None
    return cards


def altered(base: pb.DecideRequest, change: Callable[[pb.DecideRequest], object]) -> pb.DecideRequest:
    """A copy of ``base`` with ``change`` applied to it (the base stays as it is)."""
    request = pb.DecideRequest()
    request.CopyFrom(base)
    change(request)
    return request


def set_field(message: Any, name: str, value: object) -> None:
    """``setattr`` as a function, for lambdas that spoil one field."""
    setattr(message, name, value)
