"""Tournaments: rotations, the summary's shape and invariants, processes, the CLI."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import Rules
from president_cli.main import main
from workers.ai import Budget
from workers.ai.tournament import Config, format_summary, play_deal, rotations, run, summarise

LEVEL_KEYS = {"mean_points", "ci95", "president_rate", "trou_rate", "decision_ms_p50",
              "decision_ms_p95"}


# --- rotations ---------------------------------------------------------------------------


@pytest.mark.parametrize("seats, count", [
    (("hard", "normal", "normal", "normal"), 4),
    (("normal", "normal", "normal"), 1),
    (("easy", "normal", "easy", "normal"), 2),
    (("easy", "normal", "hard"), 3),
    (("easy", "easy", "normal", "easy", "easy", "normal"), 3),
])
def test_rotations_give_each_distinct_cyclic_shift_once(seats: tuple[str, ...],
                                                        count: int) -> None:
    got = list(rotations(seats))
    assert len(got) == count
    assert len(set(got)) == count
    shifts = {tuple(seats[k:]) + tuple(seats[:k]) for k in range(len(seats))}
    assert set(got) == shifts
    assert got[0] == tuple(seats)


# --- run and summarise -----------------------------------------------------------------


def assert_summary_shape(summary: dict[str, Any], seats: tuple[str, ...], deals: int) -> None:
    players = len(seats)
    levels = list(dict.fromkeys(seats))
    per_deal = len(list(rotations(seats)))
    assert {"rounds", "levels", "gaps"} <= set(summary)
    assert summary["rounds"] == deals * per_deal
    assert set(summary["levels"]) == set(levels)
    for lv, s in summary["levels"].items():
        assert LEVEL_KEYS <= set(s), lv
        assert 1 <= s["mean_points"] <= players
        assert 0 <= s["president_rate"] <= 1 and 0 <= s["trou_rate"] <= 1
        lo, hi = s["ci95"]
        assert lo <= s["mean_points"] <= hi
        assert 0 <= s["decision_ms_p50"] <= s["decision_ms_p95"]
    # points are conserved: each round hands out players*(players+1)/2 points
    total = sum(s["mean_points"] * seats.count(lv) for lv, s in summary["levels"].items())
    assert total == pytest.approx(players * (players + 1) / 2, abs=1e-3 * players)
    # exactly one Président and one Trou du cul per round
    pres = sum(s["president_rate"] * seats.count(lv) for lv, s in summary["levels"].items())
    trou = sum(s["trou_rate"] * seats.count(lv) for lv, s in summary["levels"].items())
    assert pres == pytest.approx(1, abs=1e-3 * players)
    assert trou == pytest.approx(1, abs=1e-3 * players)
    # one gap per pair of levels, the difference of their means
    assert len(summary["gaps"]) == len(levels) * (len(levels) - 1) // 2
    for i, a in enumerate(levels):
        for b in levels[i + 1:]:
            gap = summary["gaps"][f"{a}-{b}"]
            diff = summary["levels"][a]["mean_points"] - summary["levels"][b]["mean_points"]
            assert gap["mean"] == pytest.approx(diff, abs=1e-3)


def points_only(summary: dict[str, Any]) -> dict[str, Any]:
    """Everything but the timings, which depend on the machine."""
    return {
        "rounds": summary["rounds"],
        "levels": {lv: {k: v for k, v in s.items() if not k.startswith("decision_ms")}
                   for lv, s in summary["levels"].items()},
        "gaps": summary["gaps"],
    }


CONFIG = Config(Rules.preset("cardverse", players=4), ("normal", "easy", "easy", "easy"),
                deals=3, seed=5)


def test_a_tiny_run_has_the_documented_shape_and_conserves_points() -> None:
    summary = run(CONFIG, processes=1)
    assert_summary_shape(summary, CONFIG.seats, deals=3)
    assert summary["rounds"] == 12
    json.dumps(summary)  # JSON-ready
    text = format_summary(summary)
    assert "normal" in text and "easy" in text and "12 rounds" in text


def test_one_level_in_every_seat_gets_the_mean_points() -> None:
    config = Config(Rules.preset("classic", players=3, rounds=1), ("normal",) * 3, deals=2,
                    seed=1)
    summary = run(config, processes=1)
    assert summary["rounds"] == 2
    assert summary["levels"]["normal"]["mean_points"] == pytest.approx(2)
    assert summary["levels"]["normal"]["president_rate"] == pytest.approx(1 / 3, abs=1e-3)
    assert summary["gaps"] == {}


def test_two_processes_give_the_same_points_as_one() -> None:
    one = run(CONFIG, processes=1)
    two = run(CONFIG, processes=2)
    assert points_only(two) == points_only(one)


def test_a_searching_level_with_a_simulation_budget_is_deterministic_across_processes() -> None:
    config = Config(Rules.preset("classic", players=3, rounds=1), ("hard", "normal", "easy"),
                    deals=2, seed=3, budgets={"hard": Budget(simulations=4)})
    one = run(config, processes=1)
    two = run(config, processes=2)
    assert_summary_shape(one, config.seats, deals=2)
    assert points_only(two) == points_only(one)


def test_play_deal_plays_every_rotation() -> None:
    result = play_deal(CONFIG, 0)
    assert len(result.points["normal"]) == 4  # one seat in each of 4 rotations
    assert len(result.points["easy"]) == 12
    assert sum(result.points["normal"]) + sum(result.points["easy"]) == 4 * 10
    assert result.president["normal"] + result.president["easy"] == 4
    assert result.trou["normal"] + result.trou["easy"] == 4
    again = summarise(CONFIG, [result])
    assert again["rounds"] == 4
    assert again["levels"]["normal"]["mean_points"] == pytest.approx(
        sum(result.points["normal"]) / 4, abs=1e-4)
    assert again["levels"]["normal"]["ci95"] is None  # one deal: no interval
    assert "[n/a]" in format_summary(again)


def test_run_rejects_unknown_levels_and_a_wrong_seat_count() -> None:
    with pytest.raises(ValueError, match="unknown AI level"):
        run(Config(Rules.preset("classic", players=3), ("easy", "wizard", "easy"), 1, 0),
            processes=1)
    with pytest.raises(ValueError):
        run(Config(Rules.preset("classic", players=4), ("easy", "easy", "easy"), 1, 0),
            processes=1)


# --- the CLI ---------------------------------------------------------------------------


def test_cli_tournament_prints_the_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "--preset", "cardverse", "--seats", "normal,easy,easy,easy",
                 "--rounds", "8", "--quiet", "--json"])
    assert code == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert_summary_shape(summary, ("normal", "easy", "easy", "easy"), deals=2)
    assert summary["rounds"] == 8
    assert summary["preset"] == "cardverse"
    assert summary["rules"]["players"] == 4 and summary["rules"]["rounds"] == 1
    assert captured.err == ""  # --quiet: no progress


def test_cli_tournament_rounds_up_to_whole_rotations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--preset", "classic", "--seats", "normal,easy,easy",
                 "--rounds", "4", "--quiet", "--json", "--processes", "1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rounds"] == 6  # 3 rotations a deal: 4 rounds need 2 deals


def test_cli_tournament_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--preset", "classic", "--seats", "hard,normal,normal",
                 "--rounds", "3", "--quiet", "--processes", "1",
                 "--budget", "hard=3sims"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 rounds")
    assert "gap hard-normal" in out


def test_cli_json_is_standard_json_even_for_a_single_deal(
        capsys: pytest.CaptureFixture[str]) -> None:
    # 3 rotations a deal: 3 rounds are one deal, where no interval can be computed. The
    # output must still be JSON (RFC 8259 has no Infinity or NaN).
    assert main(["tournament", "--preset", "classic", "--seats", "normal,easy,easy",
                 "--rounds", "3", "--quiet", "--json", "--processes", "1"]) == 0
    out = capsys.readouterr().out

    def reject(constant: str) -> None:
        raise AssertionError(f"{constant} in --json output: not valid JSON")

    summary = json.loads(out, parse_constant=reject)
    assert summary["rounds"] == 3
    for lv in ("normal", "easy"):
        assert summary["levels"][lv]["ci95"] is None  # no interval from one deal: null
    assert summary["gaps"]["normal-easy"]["ci95"] is None


@pytest.mark.parametrize("seats", ["normal,wizard,easy,easy", "normal,easy,easy,Hard"])
def test_cli_tournament_unknown_level_is_a_clear_error(capsys: pytest.CaptureFixture[str],
                                                       seats: str) -> None:
    bad = [s for s in seats.split(",") if s not in ("easy", "normal", "hard", "expert")][0]
    code = main(["tournament", "--preset", "cardverse", "--seats", seats, "--rounds", "4",
                 "--quiet", "--json", "--processes", "1"])
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "unknown AI level" in captured.err and repr(bad) in captured.err
