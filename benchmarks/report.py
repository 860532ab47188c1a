"""``president bench report``: docs/performance.md's tables, from the benchmarks' data.

A benchmark's latest figures are its ``--json`` output, saved as
``benchmarks/results/<name>.json`` (``president bench <name> --json > …``: the output
says which command and machine made it). Each ``TABLES`` entry picks figures out of
one such file and renders them as one table, between ``<!-- bench:<name> -->`` and
``<!-- /bench -->`` on the page; met or missed is worked out from the value and the
target, never written by hand. ``--check`` fails when the page and its data disagree."""

from __future__ import annotations

import json
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
RESULTS, PAGE = ROOT / "benchmarks" / "results", ROOT / "docs" / "performance.md"
_COMPARE: dict[str, Callable[[float, float], bool]] = {"≤": operator.le, "≥": operator.ge}


@dataclass(frozen=True)
class Figure:
    label: str
    path: str  # dotted, into the report: "rulesets.classic.rounds_per_s" ("a+b": a sum)
    target: str = ""  # "≤ 50" or "≥ 4000"; empty: none


@dataclass(frozen=True)
class Table:
    name: str  # benchmarks/results/<name>.json, and the page's marker
    figures: tuple[Figure, ...]


def value_at(report: dict[str, Any], path: str) -> Any:
    """The value at a dotted ``path``; ``a+b``: the sum of two."""
    if "+" in path:
        return sum(value_at(report, p) for p in path.split("+"))
    found: Any = report
    for part in path.split("."):
        found = found[part]
    return found


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}" if value < 10 else f"{value:.1f}"


def _verdict(value: Any, target: str) -> str:
    if not target:
        return "–"
    sign, text = target.split()
    bound = float(text)
    met = _COMPARE[sign](float(value), bound)
    shown = _number(int(bound) if bound.is_integer() else bound)
    return f"{sign} {shown}: {'met' if met else '**missed**'}"


def render(table: Table, report: dict[str, Any]) -> str:
    """The table's markdown, from ``report`` (a benchmark's ``--json`` output)."""
    machine = report.get("machine", {})
    lines = [f"`{report.get('command', 'president bench ' + table.name)}` · "
             f"{machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}", "",
             "| figure | value | target |", "|---|---|---|"]
    for figure in table.figures:
        value = value_at(report, figure.path)
        lines.append(f"| {figure.label} | {_number(value)} | {_verdict(value, figure.target)} |")
    return "\n".join(lines)


def page_from_data(page: str, tables: tuple[Table, ...], results: Path = RESULTS) -> str:
    """``page`` with every marked table rendered anew from its data."""
    for table in tables:
        start, end = f"<!-- bench:{table.name} -->\n", "<!-- /bench -->"
        head, found, rest = page.partition(start)
        if not found:
            raise ValueError(f"the page has no {start.strip()} marker")
        _, closed, tail = rest.partition(end)
        if not closed:
            raise ValueError(f"{start.strip()} is not closed by {end}")
        report = json.loads((results / f"{table.name}.json").read_text())
        page = f"{head}{start}{render(table, report)}\n{end}{tail}"
    return page


def report(check: bool, tables: tuple[Table, ...] | None = None) -> int:
    """Rewrite the page from the data (``check``: only say whether it would change)."""
    chosen = TABLES if tables is None else tables
    current = PAGE.read_text()
    wanted = page_from_data(current, chosen)
    if check:
        if wanted != current:
            print(f"{PAGE} disagrees with {RESULTS}: run president bench report")
            return 1
        return 0
    PAGE.write_text(wanted)
    return 0


F = Figure
TABLES: tuple[Table, ...] = (
    Table("engine", (
        *(F(f"{ruleset} rounds/s", f"rulesets.{ruleset}.rounds_per_s", target)
          for ruleset, target in (("classic", "≥ 4000"), ("cardverse", ""), ("club", ""),
                                  ("full", "≥ 2500"), ("uecda", "≥ 2000"))),
        F("classic rounds/s, checked (`apply`)", "rulesets.classic.api_rounds_per_s"),
        F("uecda rounds/s, checked (`apply`)", "rulesets.uecda.api_rounds_per_s"))),
    Table("ai", (
        *(F(f"{level} `Decide` over gRPC, {q} ms", f"levels.{level}.grpc_{q}_ms")
          for level in ("easy", "normal", "hard", "expert") for q in ("p50", "p99")),
        F("gRPC's own cost (Easy p50, less in process) ms", "transport_overhead_ms", "≤ 1"),
        F("Hard decisions/s, 1 process (200 simulations each)", "throughput_per_s.hard.1"),
        F("Hard decisions/s, 2 processes", "throughput_per_s.hard.2"))),
    Table("pipeline", (
        F("Easy turn p50 ms, embedded broker", "embedded.easy_turn_p50_ms"),
        F("Easy turn p95 ms, embedded broker", "embedded.easy_turn_p95_ms"),
        F("Easy turn p50 ms, Redis", "redis.easy_turn_p50_ms"),
        F("Easy turn p95 ms, Redis", "redis.easy_turn_p95_ms"),
        F("all-AI rounds a minute, 1 Celery worker", "rounds_per_min.1"),
        F("all-AI rounds a minute, 2 Celery workers", "rounds_per_min.2"))),
    Table("ratings", (
        F("leaderboard page p50 ms", "leaderboard_p50_ms"),
        F("leaderboard page p99 ms", "leaderboard_p99_ms", "≤ 20"),
        F("`around` p50 ms", "around_p50_ms"),
        F("`around` p99 ms", "around_p99_ms", "≤ 20"),
        F("rounds rated a second, one rater", "rating_updates_per_s", "≥ 500"),
        F("tickets seated a second, one matcher", "matchmaking_tickets_per_s"))),
    Table("memory", (
        F("an API worker's resident MB before", "rss_mb_before"),
        F("after reading every game", "rss_mb_after"),
        F("growth MB (the cap, 64, plus 50)", "growth_mb", "≤ 114"))),
    Table("api", (
        F("hello requests/s (bare Flask, the same serving)", "hello.rps"),
        F("a view, share of hello", "view_vs_hello"),
        F("an action, share of hello", "action_vs_hello"),
        F("a view with keys and limits on, share of hello", "view_limited_vs_hello", "≥ 0.6"),
        F("an action with keys and limits on, share of hello", "action_limited_vs_hello",
          "≥ 0.25"),
        F("an action's p50 ms", "action.p50_ms"))),
    Table("api-tracing", (
        F("a view traced (every request), share of untraced", "view_traced_vs_view"),
        F("an action traced (every request), share of untraced", "action_traced_vs_action"))),
    Table("spans", (
        F("spans a traced action makes", "spans_per_action"),
        F("making and ending them, µs", "make_and_end_us"),
        F("encoding them, the exporter's encoder, µs", "encode_exporter_us"),
        F("encoding them in place (`config/otlp.py`), µs", "encode_in_place_us"))),
    Table("hints", (
        F("Normal hint p50 ms", "hint_p50_ms.normal", "≤ 5"),
        F("Normal hint p99 ms", "hint_p99_ms.normal"),
        F("Hard hint p50 ms (50 ms budget)", "hint_p50_ms.hard"),
        F("Hard hint p99 ms", "hint_p99_ms.hard", "≤ 80"),
        F("reviews a minute, one reviews process", "reviews_per_min"),
        F("a review, asked to done, max s (its wait included)", "review_s.max"),
        F("a review, its worker's time, max s", "review_work_s.max", "≤ 30"),
        F("decisions a review weighs, mean", "decisions_weighed_mean"),
        F("reviews failed", "reviews_failed", "≤ 0"))),
    Table("webhooks", (
        F("a move's webhook, commit to receiver, p50 ms", "delivery_p50_ms", "≤ 20"),
        F("p99 ms", "delivery_p99_ms"),
        F("deliveries a second, 8 threads of moves", "deliveries_per_s"))),
    Table("chaos", (
        *(f for fault in ("api_kill", "celery_kill", "grpc_kill", "postgres_restart",
                          "redis_restart", "postgres_unreachable", "redis_unreachable")
          for f in (F(f"`{fault}`: moves lost or applied twice",
                      f"faults.{fault}.acked_lost+faults.{fault}.applied_twice", "≤ 0"),
                    F(f"`{fault}`: longest stall s", f"faults.{fault}.max_stall_s", "≤ 5"))),
        F("games unfinished", "unfinished", "≤ 0"))),
    Table("soak", (
        F("moves a second, 40 clients", "moves_per_s"),
        F("largest memory growth of a process after warm-up, %", "rss_growth_pct_max", "≤ 5"),
        F("requests' p99, last minute against first, %", "p99_last_vs_first_pct", "≤ 20"),
        F("CPU ms a move: API", "cpu_ms_per_move.api"),
        F("CPU ms a move: Celery", "cpu_ms_per_move.celery"),
        F("CPU ms a move: PostgreSQL", "cpu_ms_per_move.postgres"),
        F("CPU ms a move: gRPC AI worker", "cpu_ms_per_move.grpc"))),
    Table("inline-hints", (
        F("`/healthz` p50 ms, nothing thinking", "healthz_idle_ms.p50"),
        F("`/healthz` p99 ms, nothing thinking", "healthz_idle_ms.p99"),
        F("`/healthz` p50 ms, 4 Expert hints thinking", "healthz_hints_ms.p50"),
        F("`/healthz` p99 ms, 4 Expert hints thinking", "healthz_hints_ms.p99", "≤ 50"),
        F("`/healthz` max ms, 4 Expert hints thinking", "healthz_hints_ms.max"),
        F("hints answered", "hints_answered"),
        F("hints refused (`503 ai_busy`)", "hints_refused"),
        F("a hint's p50 ms", "hint_p50_ms"))),
)
