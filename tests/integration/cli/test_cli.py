"""The ``president`` command: benchmark output shape and the rules listing."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.chaos import Window, stall
from benchmarks.load import Wait
from databases import PG_URL, REDIS_URL
from engine import PRESETS, Rules
from president_cli.main import main


def test_bench_engine_json_has_every_ruleset_and_figure(capsys: object) -> None:
    assert main(["bench", "engine", "--seconds", "0.05", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert set(report["rulesets"]) == {"classic", "cardverse", "club", "full", "uecda"}
    for figures in report["rulesets"].values():
        assert figures["rounds"] >= 1
        assert figures["actions"] > figures["rounds"]  # a round takes many actions
        assert figures["rounds_per_s"] > 0 and figures["actions_per_s"] > 0
        assert figures["api_rounds_per_s"] > 0


def test_bench_engine_text_is_a_table(capsys: object) -> None:
    assert main(["bench", "engine", "--seconds", "0.05"]) == 0
    lines = capsys.readouterr().out.splitlines()  # type: ignore[attr-defined]
    assert lines[0].split()[:3] == ["ruleset", "rounds/s", "actions/s"]
    assert [line.split()[0] for line in lines[1:]] == ["classic", "cardverse", "club", "full",
                                                       "uecda"]


def test_bench_spans_prices_an_actions_two_spans_and_both_encoders(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "spans", "--actions", "20", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["actions"] == 20 and report["spans_per_action"] == 2
    assert all(report[k] > 0 for k in ("make_and_end_us", "encode_exporter_us",
                                       "encode_in_place_us", "encode_speedup"))
    assert main(["bench", "spans", "--actions", "20"]) == 0
    assert "in place" in capsys.readouterr().out


def test_bench_engine_play_is_a_fixed_workload(capsys: object) -> None:
    """``--play N``: the same N rounds every run (what an instruction count compares)."""
    runs = []
    for _ in range(2):
        assert main(["bench", "engine", "--play", "3", "--ruleset", "uecda"]) == 0
        runs.append(json.loads(capsys.readouterr().out))  # type: ignore[attr-defined]
    assert runs[0] == runs[1] and runs[0]["rounds"] == 3 and runs[0]["actions"] > 3 * 20
    assert main(["bench", "engine", "--play", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["actions"] == 0  # type: ignore[attr-defined]


def test_rules_lists_presets_and_options(capsys: object) -> None:
    assert main(["rules"]) == 0
    listing = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert set(listing["presets"]) == set(PRESETS)
    assert Rules.from_dict(listing["presets"]["club"]) == PRESETS["club"]
    assert {o["name"] for o in listing["options"]} >= {"jokers", "straights", "revolution"}


def test_unknown_preset_is_a_clear_error(capsys: object) -> None:
    assert main(["rules", "--preset", "nope"]) == 2
    assert "unknown_preset" in capsys.readouterr().err  # type: ignore[attr-defined]


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "president"
    done = subprocess.run([str(script), "rules", "--preset", "cardverse"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["revolution"] is True


def test_db_upgrade_migrates_the_given_database(tmp_path: Path, capsys: object) -> None:
    from services.store.db import make_engine, schema_readable

    url = f"sqlite:///{tmp_path}/nested/president.db"
    assert main(["db", "upgrade", "--url", url]) == 0
    assert schema_readable(make_engine(url))
    assert "newest migration" in capsys.readouterr().out  # type: ignore[attr-defined]


@pytest.mark.parametrize(("load_generator", "shape"), [
    ("wrk", ["--worker-class", "gevent"]),
    ("python threads", ["--worker-class", "gthread", "--threads", "3"])])
def test_bench_api_json_compares_the_service_with_a_bare_endpoint(
        load_generator: str, shape: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: object) -> None:
    if load_generator == "wrk" and not shutil.which("wrk"):
        pytest.skip("wrk is not installed")
    if load_generator == "python threads":  # as on a machine without wrk
        monkeypatch.setattr("benchmarks.api.shutil.which", lambda name: None)
    assert main(["bench", "api", "--seconds", "0.3", "--clients", "2", "--rounds", "2",
                 "--workers", "1", *shape, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert report["database"] == "sqlite" and report["load_generator"] == load_generator
    assert (report["workers"], report["worker_class"], report["threads"]) == (
        (1, "gevent", None) if "gevent" in shape else (1, "gthread", 3))
    rounds = 2 if load_generator == "wrk" else 1  # the second one goes on from the first
    measured = ("hello", "hello_db", "view", "action") if load_generator == "wrk" else (
        "hello", "view", "action")
    if report["limits"] is not None:  # wrk, and a Redis where the limits count
        measured += ("hello_limited", "hello_db_limited", "view_limited", "action_limited")
        for name in ("view_limited", "action_limited"):
            assert report[name]["rps"] > 0 and report[name]["server_cpu_us"] > 0
        limited_hello = statistics.median(report["rounds"]["hello_limited"])  # its phase's
        assert report["view_limited_vs_hello"] == pytest.approx(
            report["view_limited"]["rps"] / limited_hello, abs=0.002)
    else:
        assert report["view_limited"] is None and report["action_limited"] is None
    assert {name: len(rps) for name, rps in report["rounds"].items() if rps} == dict.fromkeys(
        measured, rounds)
    assert (report["hello_db"] is None) == (load_generator != "wrk")
    for name in ("hello", "view", "action"):
        assert report[name]["rps"] > 0 and report[name]["p99_ms"] >= report[name]["p50_ms"] > 0
        assert report[name]["server_cpu_us"] > 0  # the server's CPU per request was read
    assert report["action_vs_hello"] == round(report["action"]["rps"] / report["hello"]["rps"], 3)
    check = report["action_check"]
    if load_generator == "wrk":  # every action wrk saw answered 2xx is on the server
        assert check["answered_2xx"] > 0
        assert 0 <= check["applied"] - check["answered_2xx"] <= check["in_flight_at_end"]
    else:
        assert check is None


def test_the_api_master_imports_no_database_driver() -> None:
    """gunicorn's gevent workers patch the standard library when they start, and psycopg
    chooses how it waits for the server when it is imported: imported in the master
    (before any patch) it would block a worker's whole event loop on every query."""
    code = ("import sys; from president_cli.main import build_parser; build_parser(); "
            "import services.api.serve, benchmarks.gunicorn_hooks; "
            "print(sorted(m for m in ('psycopg', 'sqlalchemy', 'services.api.app') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_api_workers_freeze_what_they_loaded_and_the_bench_does_the_same_to_both_apps(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import gc
    import signal

    from benchmarks import gunicorn_hooks
    from services.api.serve import options, worker_ready

    deployed = options("127.0.0.1", 8000, 2, "gevent", 8)
    assert deployed["worker_class"] == "gevent" and "threads" not in deployed
    assert deployed["post_worker_init"] is worker_ready
    assert options("127.0.0.1", 8000, 2, "gthread", 8)["threads"] == 8
    monkeypatch.setenv("PRESIDENT_BENCH_READY_DIR", str(tmp_path))
    handler = signal.getsignal(signal.SIGTERM)  # (the hook chains its own before it)
    try:
        gc.unfreeze()
        gunicorn_hooks.post_worker_init(type("Worker", (), {"pid": 4242})())
        assert gc.get_freeze_count() > 0  # the objects alive then are left out of collections
        assert signal.getsignal(signal.SIGTERM) is not handler  # streams end on SIGTERM
    finally:
        gc.unfreeze()
        signal.signal(signal.SIGTERM, handler)
    assert (tmp_path / "4242").exists()  # and the worker said it was ready


def test_keys_are_created_shown_once_listed_without_secret_and_revoked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from services.domain import hash_token

    url = f"sqlite:///{tmp_path}/president.db"
    assert main(["db", "upgrade", "--url", url]) == 0
    capsys.readouterr()
    assert main(["keys", "create", "--name", "mobile backend", "--scopes",
                 "games:create-human,games:read", "--max-active-games", "50", "--url", url]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["key"].startswith("pk_") and made["scopes"] == ["games:create-human",
                                                              "games:read"]
    assert main(["keys", "list", "--url", url]) == 0
    listed = capsys.readouterr().out
    assert made["id"] in listed and made["key"] not in listed
    assert hash_token(made["key"]) not in listed
    assert json.loads(listed)["max_active_games"] == 50 and not json.loads(listed)["revoked"]
    assert main(["keys", "revoke", made["id"], "--url", url]) == 0
    capsys.readouterr()
    assert main(["keys", "list", "--url", url]) == 0
    assert json.loads(capsys.readouterr().out)["revoked"] is True
    assert main(["keys", "revoke", "nope", "--url", url]) == 2
    assert "key_not_found" in capsys.readouterr().err
    assert main(["keys", "create", "--name", "x", "--scopes", "admin", "--url", url]) == 2
    assert "bad_scope" in capsys.readouterr().err


def test_bench_memory_reads_distinct_finished_games_and_reports_the_worker_s_memory(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "memory", "--games", "12", "--rounds", "3", "--cache-mb", "8",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["games"], report["rounds"], report["cache_cap_mb"]) == (12, 3, 8)
    assert report["actions_per_game"] > 3 * 20  # three whole rounds were played
    assert report["rss_mb_before"] > 10 and report["rss_mb_after"] > 10  # a real process's
    assert report["growth_mb"] == round(report["rss_mb_after"] - report["rss_mb_before"], 1)


@pytest.mark.skipif(not PG_URL, reason="PostgreSQL only: set PRESIDENT_TEST_DATABASE_URL "
                    "(.ci/run does)")
def test_bench_ratings_json_has_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert PG_URL is not None
    assert main(["bench", "ratings", "--database-url", PG_URL, "--players", "300",
                 "--series", "3", "--tickets", "24", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["players"] == 300 and report["rounds_rated"] == 6
    assert report["tickets_seated"] == 24  # their waits over: all seated
    for figure in ("leaderboard_p99_ms", "around_p99_ms", "rating_updates_per_s",
                   "matchmaking_tickets_per_s"):
        assert report[figure] > 0


@pytest.mark.skipif(not (PG_URL and REDIS_URL), reason="PostgreSQL and Redis: set "
                    "PRESIDENT_TEST_DATABASE_URL and PRESIDENT_TEST_REDIS_URL (.ci/run does)")
def test_bench_hints_json_has_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert PG_URL is not None and REDIS_URL is not None
    assert main(["bench", "hints", "--database-url", PG_URL, "--redis-url",
                 f"{REDIS_URL.rstrip('/')}/12", "--hints", "4", "--reviews", "1",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hints"] == {"normal": 4, "hard": 4}
    for level in ("normal", "hard"):
        assert 0 < report["hint_p50_ms"][level] <= report["hint_p99_ms"][level]
    assert report["reviews"] == 1 and report["reviews_failed"] == 0
    assert report["reviews_per_min"] > 0 and report["decisions_weighed_mean"] > 0


def test_a_chaos_window_answers_for_the_stalls_after_its_fault_cleared_and_before_its_end(
) -> None:
    window = Window("redis_restart", start=100.0, cleared=100.1, end=110.1)
    assert stall(Wait("g", 99.8, 102.9), window) == pytest.approx(2.8)  # from the clearing
    assert stall(Wait("g", 101.0, 101.5), window) == pytest.approx(0.5)
    # a wait the next fault (a 10 s freeze from 110.1) prolonged: its share is up to 110.1
    assert stall(Wait("g", 109.9, 121.2), window) == pytest.approx(0.2)
