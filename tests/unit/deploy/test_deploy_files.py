"""The deploy files, checked by parsing (Docker and Kubernetes do not run here).

Every check is a function that returns a list of problems: the real files must give
none, and a few deliberately broken copies must give some, so that the checks are seen
to be able to fail. Commands are checked with the CLI's own parser (never run), and
environment variables against ``config.settings.SETTINGS``.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any, Iterable, Iterator

import pytest
import yaml

from president_cli.main import build_parser
from services.api.serve import API_THREADS, API_WORKER_CLASS, API_WORKERS
from config.settings import SETTINGS
from workers.turns.app import DEFAULT_QUEUES, QUEUES

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
NGINX = DEPLOY / "nginx.conf"
K8S = DEPLOY / "k8s"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"

DECLARED = frozenset(s.name for s in SETTINGS)
SSE_PATH = "/v1/games/g-123/events/stream"
Problems = list[str]


# --- shared checks -------------------------------------------------------------------

def parse_command(argv: Iterable[str]) -> Any:
    """The CLI's parse of a command (``president`` first or not; never run). Raises
    ValueError when the CLI would refuse it."""
    args = list(argv)
    if args and args[0] == "president":
        args = args[1:]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            return build_parser().parse_args(args)
    except SystemExit:  # argparse's way of refusing (or of printing --help)
        raise ValueError(f"the CLI refuses {args!r}: {err.getvalue().strip()}") from None


def command_problems(argv: Iterable[str], where: str) -> Problems:
    try:
        parse_command(argv)
    except ValueError as exc:
        return [f"{where}: {exc}"]
    return []


def env_problems(names: Iterable[str], where: str) -> Problems:
    return [f"{where}: {name} is not a setting declared in config/settings.py"
            for name in sorted(set(names) - DECLARED)]


def queues_of(argv: list[str]) -> set[str]:
    """The queues a ``celery-worker`` command consumes (no --queues: all but reviews)."""
    args = parse_command(argv)
    return set(DEFAULT_QUEUES) if not args.queues else {q.strip() for q in args.queues.split(",")}


def queue_problems(consumed: set[str], where: str) -> Problems:
    problems = [f"{where}: queue {q} is consumed by no Celery worker"
                for q in QUEUES if q not in consumed]
    problems += [f"{where}: unknown queue {q} (known: {', '.join(QUEUES)})"
                 for q in sorted(consumed - set(QUEUES))]
    return problems


def engine_targets(value: str) -> dict[str, tuple[str, int]]:
    targets = {}
    for item in filter(None, (p.strip() for p in value.split(","))):
        name, _, target = item.partition("=")
        host, _, port = target.rpartition(":")
        targets[name] = (host, int(port))
    return targets


# --- docker compose ------------------------------------------------------------------

def load_compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def is_project(service: dict[str, Any]) -> bool:
    return "build" in service or str(service.get("image", "")).split(":")[0].endswith("president")


def compose_argv(service: dict[str, Any]) -> list[str]:
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else [str(c) for c in command]


def project_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in compose["services"].items() if is_project(s)}


def services_running(compose: dict[str, Any], subcommand: str) -> dict[str, dict[str, Any]]:
    found = {}
    for name, service in project_services(compose).items():
        try:
            if parse_command(compose_argv(service)).command == subcommand:
                found[name] = service
        except ValueError:
            pass  # reported by compose_command_problems
    return found


def env_names(environment: Any) -> list[str]:
    if isinstance(environment, dict):
        return list(environment)
    return [str(item).split("=", 1)[0] for item in environment or []]


def replicas(service: dict[str, Any]) -> int:
    return int((service.get("deploy") or {}).get("replicas", 1))


def healthcheck_argv(service: dict[str, Any]) -> list[str]:
    test = (service.get("healthcheck") or {}).get("test") or []
    if isinstance(test, str):
        return ["CMD-SHELL", test]
    return [str(t) for t in test]


def compose_command_problems(compose: dict[str, Any]) -> Problems:
    problems: Problems = []
    for name, service in project_services(compose).items():
        argv = compose_argv(service)
        if not argv:
            problems.append(f"compose {name}: no command (the image's default is --help)")
            continue
        problems += command_problems(argv, f"compose {name}")
        probe = healthcheck_argv(service)
        if probe[:1] == ["CMD"] and probe[1:2] == ["president"]:
            problems += command_problems(probe[1:], f"compose {name} healthcheck")
        elif probe[:1] == ["CMD"] and probe[1:3] == ["python", "-c"]:
            try:
                compile(probe[3], f"{name} healthcheck", "exec")
            except SyntaxError as exc:
                problems.append(f"compose {name} healthcheck: {exc}")
        elif probe:
            problems.append(f"compose {name} healthcheck: not `president …` nor python -c")
    return problems


def compose_env_problems(compose: dict[str, Any]) -> Problems:
    problems: Problems = []
    for name, service in project_services(compose).items():
        problems += env_problems(env_names(service.get("environment")), f"compose {name}")
        if "env_file" in service:
            problems.append(f"compose {name}: env_file cannot be checked; use environment")
    return problems


def compose_depends_problems(compose: dict[str, Any]) -> Problems:
    services = compose["services"]
    conditions = {"service_started", "service_healthy", "service_completed_successfully"}
    problems: Problems = []
    for name, service in services.items():
        depends = service.get("depends_on") or {}
        if isinstance(depends, list):
            depends = {target: {"condition": "service_started"} for target in depends}
        for target, spec in depends.items():
            condition = (spec or {}).get("condition", "service_started")
            if target not in services:
                problems.append(f"compose {name}: depends on {target}, no such service")
            elif condition not in conditions:
                problems.append(f"compose {name}: unknown condition {condition}")
            elif condition == "service_healthy" and "healthcheck" not in services[target]:
                problems.append(f"compose {name}: waits for {target} healthy, it has no "
                                "healthcheck")
    return problems


def compose_queue_problems(compose: dict[str, Any]) -> Problems:
    consumed: set[str] = set()
    for service in services_running(compose, "celery-worker").values():
        consumed |= queues_of(compose_argv(service))
    return queue_problems(consumed, "compose")


def compose_engine_problems(compose: dict[str, Any]) -> Problems:
    """PRESIDENT_AI_ENGINES names compose services, on the port their command serves."""
    ports = {name: parse_command(compose_argv(s)).port
             for name, s in services_running(compose, "ai-worker").items()}
    problems: Problems = []
    for name, service in project_services(compose).items():
        value = (service.get("environment") or {}).get("PRESIDENT_AI_ENGINES")
        if not value:
            continue
        targets = engine_targets(value)
        for level in ("easy", "normal", "hard", "expert"):
            if level not in targets:
                problems.append(f"compose {name}: no AI engine target for {level}")
        for engine, (host, port) in targets.items():
            if ports.get(host) != port:
                problems.append(f"compose {name}: engine {engine} at {host}:{port}, which "
                                "no ai-worker service serves")
    return problems


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load_compose()


def test_compose_commands_are_cli_commands(compose: dict[str, Any]) -> None:
    assert len(project_services(compose)) >= 6
    assert compose_command_problems(compose) == []


def test_compose_environment_is_declared_settings(compose: dict[str, Any]) -> None:
    assert compose_env_problems(compose) == []


def test_compose_depends_on_existing_services(compose: dict[str, Any]) -> None:
    assert compose_depends_problems(compose) == []


def test_compose_every_queue_is_consumed(compose: dict[str, Any]) -> None:
    assert compose_queue_problems(compose) == []


def test_compose_ai_engines_point_at_the_ai_worker(compose: dict[str, Any]) -> None:
    assert compose_engine_problems(compose) == []


def test_compose_healthchecks(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert "pg_isready" in " ".join(healthcheck_argv(services["postgres"]))
    assert healthcheck_argv(services["redis"])[-2:] == ["redis-cli", "ping"]
    apis = services_running(compose, "api")
    workers = services_running(compose, "ai-worker")
    assert apis and workers
    for name, service in apis.items():
        probe = " ".join(healthcheck_argv(service))
        port = parse_command(compose_argv(service)).port
        assert f"127.0.0.1:{port}/readyz" in probe, name
    for name, service in workers.items():
        args = parse_command(healthcheck_argv(service)[1:])
        assert (args.command, args.target_kind) == ("health", "grpc"), name
        assert args.target.endswith(f":{parse_command(compose_argv(service)).port}"), name


def test_compose_runs_two_api_replicas_and_one_beat(compose: dict[str, Any]) -> None:
    assert sum(replicas(s) for s in services_running(compose, "api").values()) >= 2
    beats = services_running(compose, "celery-beat")
    assert len(beats) == 1 and replicas(next(iter(beats.values()))) == 1


def test_compose_migrates_once_before_the_rest(compose: dict[str, Any]) -> None:
    migrations = [name for name, s in project_services(compose).items()
                  if compose_argv(s)[:2] == ["db", "upgrade"]]
    assert len(migrations) == 1
    migrate = compose["services"][migrations[0]]
    assert migrate.get("restart") == "no"
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("api", "celery-worker", "celery-beat"):
        for service in services_running(compose, name).values():
            assert service["depends_on"][migrations[0]]["condition"] == \
                "service_completed_successfully", name


def test_compose_third_party_images(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert services["postgres"]["image"] == "postgres:16"
    assert services["redis"]["image"] == "redis:7"
    assert any(str(s.get("image", "")).startswith("nginx") for s in services.values())


# --- the reverse proxy ---------------------------------------------------------------

def nginx_text() -> str:
    return re.sub(r"#[^\n]*", "", NGINX.read_text())


def nginx_blocks(text: str, head: str) -> Iterator[tuple[str, str]]:
    """(argument, body) of each ``head ARG {…}`` block, braces matched."""
    for match in re.finditer(rf"\b{head}\s+([^{{;]*?)\s*{{", text):
        depth, i = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield match.group(1), text[match.end():i - 1]


def nginx_problems(text: str, compose: dict[str, Any]) -> Problems:
    apis = {name: parse_command(compose_argv(s)).port
            for name, s in services_running(compose, "api").items()}
    upstreams = dict(nginx_blocks(text, "upstream"))
    problems: Problems = []
    servers: dict[str, int] = {}
    for body in upstreams.values():
        for host, port in re.findall(r"^\s*server\s+([\w.-]+):(\d+)", body, re.M):
            servers[host] = int(port)
    if servers != apis:
        problems.append(f"nginx upstream servers {servers} are not the compose API "
                        f"services {apis}")
    for target in re.findall(r"proxy_pass\s+http://([\w.-]+)", text):
        if target not in upstreams:
            problems.append(f"nginx proxy_pass to {target}, no such upstream")
    sse = [body for arg, body in nginx_blocks(text, "location")
           if arg.startswith("~") and re.search(arg.lstrip("~*").strip(), SSE_PATH)]
    if not sse or not all(re.search(r"proxy_buffering\s+off", body) for body in sse):
        problems.append(f"nginx: no location with proxy_buffering off for {SSE_PATH}")
    return problems


def test_nginx_proxies_to_the_compose_api_services(compose: dict[str, Any]) -> None:
    assert nginx_problems(nginx_text(), compose) == []


def test_compose_mounts_the_nginx_config(compose: dict[str, Any]) -> None:
    mounts = [str(v).split(":")[0] for s in compose["services"].values()
              if str(s.get("image", "")).startswith("nginx") for v in s.get("volumes", [])]
    assert [(COMPOSE.parent / m).resolve() for m in mounts] == [NGINX]


# --- Kubernetes ----------------------------------------------------------------------

def load_k8s() -> list[dict[str, Any]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        docs += [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    return docs


def objects(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d.get("kind") == kind}


def pod_specs(docs: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for doc in docs:
        if doc.get("kind") in ("Deployment", "Job", "StatefulSet", "DaemonSet"):
            yield f"{doc['kind']} {doc['metadata']['name']}", doc["spec"]["template"]["spec"]


def is_project_image(image: str) -> bool:
    return image.split("@")[0].split(":")[0].rsplit("/", 1)[-1] == "president"


def container_argv(container: dict[str, Any]) -> list[str]:
    # No `command`: the image's ENTRYPOINT ["president"] runs with `args`.
    return list(container.get("command") or ["president"]) + list(container.get("args") or [])


def probes(container: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
        if kind in container:
            yield kind, container[kind]


def k8s_command_problems(docs: list[dict[str, Any]]) -> Problems:
    problems: Problems = []
    for where, spec in pod_specs(docs):
        for container in spec["containers"] + spec.get("initContainers", []):
            if not is_project_image(container["image"]):
                continue
            problems += command_problems(container_argv(container), where)
            for kind, probe in probes(container):
                if "exec" in probe:
                    problems += command_problems(probe["exec"]["command"], f"{where} {kind}")
    return problems


def k8s_env_problems(docs: list[dict[str, Any]]) -> Problems:
    problems: Problems = []
    maps, secrets = objects(docs, "ConfigMap"), objects(docs, "Secret")
    for name, config in maps.items():
        problems += env_problems(config.get("data") or {}, f"ConfigMap {name}")
    for name, secret in secrets.items():
        keys = {**(secret.get("data") or {}), **(secret.get("stringData") or {})}
        problems += env_problems(keys, f"Secret {name}")
    for where, spec in pod_specs(docs):
        for container in spec["containers"]:
            problems += env_problems([e["name"] for e in container.get("env", [])], where)
            for source in container.get("envFrom", []):
                if "configMapRef" in source and source["configMapRef"]["name"] not in maps:
                    problems.append(f"{where}: no ConfigMap {source['configMapRef']['name']}")
                if "secretRef" in source and source["secretRef"]["name"] not in secrets:
                    problems.append(f"{where}: no Secret {source['secretRef']['name']}")
    return problems


def k8s_resource_problems(docs: list[dict[str, Any]]) -> Problems:
    problems: Problems = []
    for where, spec in pod_specs(docs):
        for container in spec["containers"]:
            resources = container.get("resources") or {}
            for part, key in (("requests", "cpu"), ("requests", "memory"), ("limits", "memory")):
                if key not in (resources.get(part) or {}):
                    problems.append(f"{where} {container['name']}: no {part}.{key}")
    return problems


def deployments_running(docs: list[dict[str, Any]], subcommand: str) -> dict[str, dict[str, Any]]:
    found = {}
    for name, deployment in objects(docs, "Deployment").items():
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        try:
            if parse_command(container_argv(container)).command == subcommand:
                found[name] = deployment
        except ValueError:
            pass  # reported by k8s_command_problems
    return found


def first_container(deployment: dict[str, Any]) -> dict[str, Any]:
    return deployment["spec"]["template"]["spec"]["containers"][0]


def port_number(container: dict[str, Any], port: int | str) -> int | None:
    for declared in container.get("ports", []):
        if port in (declared["containerPort"], declared.get("name")):
            return int(declared["containerPort"])
    return None


def k8s_probe_problems(docs: list[dict[str, Any]]) -> Problems:
    problems: Problems = []
    apis, workers = deployments_running(docs, "api"), deployments_running(docs, "ai-worker")
    if not apis or not workers:
        problems.append("k8s: no api or no ai-worker Deployment")
    for name, deployment in apis.items():
        container = first_container(deployment)
        serves = parse_command(container_argv(container)).port
        for kind, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
            get = (container.get(kind) or {}).get("httpGet") or {}
            if get.get("path") != path or port_number(container, get.get("port", -1)) != serves:
                problems.append(f"{name}: {kind} is not GET {path} on port {serves}")
    for name, deployment in workers.items():
        container = first_container(deployment)
        serves = parse_command(container_argv(container)).port
        for kind in ("readinessProbe", "livenessProbe"):
            grpc = (container.get(kind) or {}).get("grpc") or {}
            if port_number(container, grpc.get("port", -1)) != serves:
                problems.append(f"{name}: {kind} is not a grpc probe on port {serves}")
    for name, deployment in deployments_running(docs, "celery-worker").items():
        probe = (first_container(deployment).get("livenessProbe") or {}).get("exec") or {}
        try:
            args = parse_command(probe.get("command") or [])
            ok = (args.command, args.target_kind) == ("health", "celery")
        except ValueError:
            ok = False
        if not ok:
            problems.append(f"{name}: livenessProbe is not `president health celery`")
    return problems


def k8s_selector_problems(docs: list[dict[str, Any]]) -> Problems:
    problems: Problems = []
    deployments = objects(docs, "Deployment")
    for name, deployment in deployments.items():
        wanted = deployment["spec"]["selector"]["matchLabels"].items()
        if not wanted <= deployment["spec"]["template"]["metadata"]["labels"].items():
            problems.append(f"Deployment {name}: its selector misses its own pods")
    for name, service in objects(docs, "Service").items():
        selector = service["spec"]["selector"].items()
        matched = [d for d in deployments.values()
                   if selector <= d["spec"]["template"]["metadata"]["labels"].items()]
        if not matched:
            problems.append(f"Service {name}: selects no Deployment's pods")
        for port in service["spec"]["ports"]:
            target = port.get("targetPort", port["port"])
            if not any(port_number(c, target) for d in matched
                       for c in d["spec"]["template"]["spec"]["containers"]):
                problems.append(f"Service {name}: targetPort {target} is no container port")
    return problems


def k8s_hpa_problems(docs: list[dict[str, Any]]) -> Problems:
    problems: Problems = []
    deployments = objects(docs, "Deployment")
    targeted = set()
    for name, hpa in objects(docs, "HorizontalPodAutoscaler").items():
        ref = hpa["spec"]["scaleTargetRef"]
        if hpa["apiVersion"] != "autoscaling/v2":
            problems.append(f"HPA {name}: not autoscaling/v2")
        if ref["kind"] != "Deployment" or ref["name"] not in deployments:
            problems.append(f"HPA {name}: targets {ref['kind']} {ref['name']}, no such one")
        targeted.add(ref["name"])
        if not any(m.get("resource", {}).get("name") == "cpu"
                   and m["resource"]["target"]["type"] == "Utilization"
                   for m in hpa["spec"]["metrics"]):
            problems.append(f"HPA {name}: no CPU utilization target")
        if not 1 <= hpa["spec"].get("minReplicas", 1) <= hpa["spec"]["maxReplicas"]:
            problems.append(f"HPA {name}: minReplicas/maxReplicas out of order")
    for kind in ("ai-worker", "celery-worker"):
        for name in deployments_running(docs, kind):
            if name not in targeted:
                problems.append(f"Deployment {name} ({kind}) has no HorizontalPodAutoscaler")
    for name in deployments_running(docs, "celery-beat"):
        if name in targeted:
            problems.append(f"Deployment {name} (beat) must not be autoscaled")
    return problems


def k8s_queue_problems(docs: list[dict[str, Any]]) -> Problems:
    consumed: set[str] = set()
    for deployment in deployments_running(docs, "celery-worker").values():
        consumed |= queues_of(container_argv(first_container(deployment)))
    return queue_problems(consumed, "k8s")


@pytest.fixture(scope="module")
def k8s() -> list[dict[str, Any]]:
    return load_k8s()


def test_k8s_documents_are_objects(k8s: list[dict[str, Any]]) -> None:
    kinds = {d["kind"] for d in k8s}
    assert {"ConfigMap", "Secret", "Deployment", "Service", "Job",
            "HorizontalPodAutoscaler"} <= kinds
    for doc in k8s:
        assert doc.get("apiVersion") and (doc["kind"] == "Kustomization"
                                          or doc["metadata"]["name"]), doc


def test_k8s_kustomization_lists_every_file_but_the_example_secret(
        k8s: list[dict[str, Any]]) -> None:
    """An apply never overwrites the real Secret: the example is left out, and no
    listed file holds a Secret."""
    (kustomization,) = [d for d in k8s if d["kind"] == "Kustomization"]
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", "secret.example.yaml"}
    assert set(kustomization["resources"]) == files
    for name in kustomization["resources"]:
        kinds = {d["kind"] for d in yaml.safe_load_all((K8S / name).read_text()) if d}
        assert "Secret" not in kinds, name
    (example,) = yaml.safe_load_all((K8S / "secret.example.yaml").read_text())
    assert example["kind"] == "Secret" and "DATABASE_URL" in example["stringData"]


def test_compose_has_no_default_database_password() -> None:
    text = COMPOSE.read_text()
    assert "POSTGRES_PASSWORD:-" not in text  # no fallback value
    assert text.count("${POSTGRES_PASSWORD:?") == 2  # refuses to start without one


def test_metrics_are_never_public(compose: dict[str, Any], k8s: list[dict[str, Any]]) -> None:
    """/metrics answers on the API's metrics port only, which neither nginx nor the
    Service exposes; nginx refuses the path besides."""
    (api,) = [s for s in services_running(compose, "api").values()]
    assert api["environment"]["PRESIDENT_METRICS_PORT"] == "9100"
    assert "location = /metrics" in nginx_text() and "9100" not in nginx_text()
    deployment = deployments_running(k8s, "api")["president-api"]
    container = first_container(deployment)
    assert {"name": "PRESIDENT_METRICS_PORT", "value": "9100"} in container["env"]
    service = objects(k8s, "Service")["president-api"]
    assert [p["targetPort"] for p in service["spec"]["ports"]] == ["http"]
    assert port_number(container, "http") == 8000


def test_k8s_commands_are_cli_commands(k8s: list[dict[str, Any]]) -> None:
    assert len(list(pod_specs(k8s))) >= 5
    assert k8s_command_problems(k8s) == []


def test_the_api_is_deployed_in_the_shape_the_bench_measures(
        compose: dict[str, Any], k8s: list[dict[str, Any]]) -> None:
    """``president bench api`` measures the API as deployed: the same gunicorn workers,
    worker class (and threads, for gthread) as compose and Kubernetes run, which are
    ``president api``'s defaults."""
    deployed = [parse_command(compose_argv(s)) for s in services_running(compose, "api").values()]
    deployed += [parse_command(container_argv(first_container(d)))
                 for d in deployments_running(k8s, "api").values()]
    assert len(deployed) == 2
    bench = parse_command(["bench", "api"])
    shapes = {_shape(args) for args in [*deployed, parse_command(["api"])]}
    assert shapes == {_shape(bench)} == {(API_WORKERS, API_WORKER_CLASS, API_THREADS)}


def _shape(args: Any) -> tuple[int, str, int]:
    return args.workers, args.worker_class, args.threads


def test_k8s_environment_is_declared_settings(k8s: list[dict[str, Any]]) -> None:
    assert k8s_env_problems(k8s) == []


def test_k8s_resources_requested(k8s: list[dict[str, Any]]) -> None:
    assert k8s_resource_problems(k8s) == []


def test_k8s_probes(k8s: list[dict[str, Any]]) -> None:
    assert k8s_probe_problems(k8s) == []


def test_k8s_services_select_deployments(k8s: list[dict[str, Any]]) -> None:
    services = objects(k8s, "Service")
    api = next(s for s in services.values()
               if s["metadata"]["labels"].get("app.kubernetes.io/component") == "api")
    assert [p["port"] for p in api["spec"]["ports"]] == [80]
    assert k8s_selector_problems(k8s) == []


def test_k8s_autoscalers(k8s: list[dict[str, Any]]) -> None:
    assert k8s_hpa_problems(k8s) == []


def test_k8s_every_queue_is_consumed(k8s: list[dict[str, Any]]) -> None:
    assert k8s_queue_problems(k8s) == []


def test_k8s_single_beat_and_a_migration_job(k8s: list[dict[str, Any]]) -> None:
    (beat,) = deployments_running(k8s, "celery-beat").values()
    assert beat["spec"]["replicas"] == 1 and beat["spec"]["strategy"]["type"] == "Recreate"
    jobs = [container_argv(c)[1:3] for job in objects(k8s, "Job").values()
            for c in job["spec"]["template"]["spec"]["containers"]]
    assert ["db", "upgrade"] in jobs


def test_k8s_ai_engines_point_at_the_ai_worker_service(k8s: list[dict[str, Any]]) -> None:
    services = objects(k8s, "Service")
    workers = deployments_running(k8s, "ai-worker")
    ports = {name: p["port"] for name, s in services.items() for p in s["spec"]["ports"]
             if any(s["spec"]["selector"].items()
                    <= d["spec"]["template"]["metadata"]["labels"].items()
                    for d in workers.values())}
    engines = [c["data"]["PRESIDENT_AI_ENGINES"] for c in objects(k8s, "ConfigMap").values()
               if "PRESIDENT_AI_ENGINES" in c.get("data", {})]
    assert engines
    for value in engines:
        targets = engine_targets(value)
        assert {"easy", "normal", "hard", "expert"} <= set(targets)
        for host, port in targets.values():
            assert ports.get(host) == port, (host, port)


# --- who may connect to which pod (NetworkPolicy) -------------------------------------

NAMESPACE = {"kubernetes.io/metadata.name": "president"}
MONITORING = {"kubernetes.io/metadata.name": "monitoring"}


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A label selector's verdict (matchLabels, and matchExpressions' In / NotIn)."""
    if not selector.get("matchLabels", {}).items() <= labels.items():
        return False
    for e in selector.get("matchExpressions", []):
        inside = labels.get(e["key"]) in e.get("values", [])
        if (e["operator"] == "In") != inside:
            return False
    return True


def peer_admits(peer: dict[str, Any], namespace: dict[str, str],
                pod: dict[str, str] | None) -> bool:
    """``pod`` None: a client outside the cluster (the ingress controller's traffic)."""
    if "ipBlock" in peer:
        return pod is None
    if pod is None:
        return False
    in_namespace = (selects(peer["namespaceSelector"], namespace)
                    if "namespaceSelector" in peer else namespace == NAMESPACE)
    return in_namespace and selects(peer.get("podSelector", {}), pod)


def admits(docs: list[dict[str, Any]], target: dict[str, str], port: str,
           namespace: dict[str, str], pod: dict[str, str] | None) -> bool:
    """Whether a connection to ``target``'s named port is let in: isolated pods admit
    what some rule of a policy selecting them admits."""
    policies = [p["spec"] for p in objects(docs, "NetworkPolicy").values()
                if selects(p["spec"]["podSelector"], target)
                and "Ingress" in p["spec"].get("policyTypes", ["Ingress"])]
    if not policies:
        return True  # not isolated
    for rule in (r for p in policies for r in p.get("ingress", [])):
        ports = [q["port"] for q in rule.get("ports", [])]
        peers = rule.get("from")
        if (not ports or port in ports) and (
                peers is None or any(peer_admits(x, namespace, pod) for x in peers)):
            return True
    return False


def pod_labels(docs: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    return {d["metadata"]["name"]: d["spec"]["template"]["metadata"]["labels"]
            for d in docs if d.get("kind") in ("Deployment", "Job")}


def network_problems(docs: list[dict[str, Any]]) -> Problems:
    pods = pod_labels(docs)
    callers = {name for name, d in deployments_running(docs, "celery-worker").items()
               if any(q.startswith("ai.") for q in queues_of(container_argv(first_container(d))))}
    sources: list[tuple[dict[str, str], dict[str, str] | None, str]] = [
        (NAMESPACE, labels, name) for name, labels in pods.items()]
    sources += [(MONITORING, {"app": "prometheus"}, "prometheus"), ({}, None, "outside")]
    problems: Problems = []
    for target_name, target in pods.items():
        for port in ("http", "metrics", "grpc"):
            for namespace, labels, source in sources:
                wanted = ((target_name == "president-api" and port == "http")
                          or (target_name == "president-api" and port == "metrics"
                              and source == "prometheus")
                          or (port == "grpc" and source in callers
                              and target_name in deployments_running(docs, "ai-worker")))
                if admits(docs, target, port, namespace, labels) != wanted:
                    problems.append(f"k8s: {source} → {target_name}:{port} "
                                    f"{'refused' if wanted else 'let in'}")
    return problems


def test_k8s_network_policies_let_in_only_who_needs_it(k8s: list[dict[str, Any]]) -> None:
    """The gRPC workers trust their callers: only the Celery workers of the ai.* queues
    reach them; metrics only from the monitoring namespace; nothing reaches Celery."""
    assert network_problems(k8s) == []
    open_door = copy.deepcopy(k8s)
    policy = objects(open_door, "NetworkPolicy")["president-ai-worker"]["spec"]
    policy["ingress"][0]["from"][0]["podSelector"] = {}
    assert "k8s: president-api → president-ai-worker:grpc let in" in network_problems(open_door)
    no_default = [d for d in k8s
                  if d.get("metadata", {}).get("name") != "president-default-deny"]
    assert any("president-beat" in p for p in network_problems(no_default))


def test_k8s_trusts_one_proxy_behind_its_ingress(k8s: list[dict[str, Any]]) -> None:
    """Rate limits count under the client's address, which the ingress puts in
    X-Forwarded-For; untrusted, every client would share the ingress' address."""
    (config,) = [c for c in objects(k8s, "ConfigMap").values()
                 if "PRESIDENT_AUTH" in c.get("data", {})]
    assert int(config["data"]["PRESIDENT_TRUSTED_PROXIES"]) >= 1


# --- the Dockerfile ------------------------------------------------------------------

def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", re.sub(r"^\s*#[^\n]*\n", "", text, flags=re.M))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip())
            for line in text.splitlines() if line.strip()]


def dockerfile_problems(text: str) -> Problems:
    instructions = dockerfile_instructions(text)
    stages = [i for i, (op, _) in enumerate(instructions) if op == "FROM"]
    final = instructions[stages[-1]:]
    problems: Problems = []
    for op, arg in instructions:
        if op == "FROM" and not arg.startswith("python:3.11-slim"):
            problems.append(f"Dockerfile: base {arg} is not python:3.11-slim")
    users = [arg for op, arg in final if op == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        problems.append("Dockerfile: the final stage does not run as a non-root USER")
    entry = [arg for op, arg in final if op == "ENTRYPOINT"]
    if not entry or json.loads(entry[-1]) != ["president"]:
        problems.append('Dockerfile: ENTRYPOINT is not ["president"]')
    runs = " ".join(arg for op, arg in instructions if op == "RUN")
    if "pip install --no-cache-dir ." not in runs:
        problems.append("Dockerfile: does not `pip install --no-cache-dir .`")
    copied = {src.rstrip("/") for op, arg in instructions if op == "COPY"
              and not arg.startswith("--from") for src in arg.split()[:-1]}
    for needed in ["pyproject.toml", *packaged_sources()]:
        if needed not in copied:
            problems.append(f"Dockerfile: {needed} is not copied into the build")
    exposed = {p for op, arg in final if op == "EXPOSE" for p in arg.split()}
    if not {"8000", "50051"} <= exposed:
        problems.append("Dockerfile: does not EXPOSE 8000 and 50051")
    return problems


def packaged_sources() -> list[str]:
    """What pip needs to install the project: the package folders pyproject finds, and
    its readme."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    find = project["tool"]["setuptools"]["packages"]["find"]
    sources = [project["project"]["readme"]]
    for where in find["where"]:
        for pattern in find["include"]:
            name = pattern.split(".")[0].rstrip("*")
            if (ROOT / where / name / "__init__.py").is_file():
                source = name if where == "." else where
                if source not in sources:
                    sources.append(source)
    return sources


def test_dockerfile() -> None:
    assert dockerfile_problems(DOCKERFILE.read_text()) == []


def test_dockerignore_keeps_the_sources() -> None:
    ignored = {line.strip().rstrip("/") for line in DOCKERIGNORE.read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    assert {".venv", ".git", "var", "**/__pycache__"} <= ignored
    assert not ignored & {"pyproject.toml", *packaged_sources()}


# --- the checks can fail -------------------------------------------------------------

def test_the_command_check_rejects_what_the_cli_refuses() -> None:
    assert command_problems(["president", "no-such-command"], "x")
    assert command_problems(["api", "--no-such-option", "1"], "x")
    assert command_problems(["celery-worker", "--pool", "gevent"], "x")
    assert command_problems(["president", "--help"], "x")
    assert command_problems([], "x")
    assert command_problems(["president", "health", "grpc", "--target", "127.0.0.1:50051"],
                            "x") == []


def test_the_env_check_rejects_an_undeclared_variable() -> None:
    assert env_problems(["DATABASE_URL", "NOT_A_PRESIDENT_SETTING"], "x") == [
        "x: NOT_A_PRESIDENT_SETTING is not a setting declared in config/settings.py"]


def test_the_compose_checks_reject_broken_copies(compose: dict[str, Any]) -> None:
    broken = copy.deepcopy(compose)
    broken["services"]["worker-slow"]["command"] = ["celery-worker", "--queues", "ai.hard"]
    assert compose_queue_problems(broken) == [
        "compose: queue ai.expert is consumed by no Celery worker"]
    broken["services"]["beat"]["command"] = ["president", "no-such-command"]
    assert compose_command_problems(broken)
    broken["services"]["api"]["environment"]["PRESIDENT_MADE_UP"] = "1"
    assert compose_env_problems(broken) == [
        "compose api: PRESIDENT_MADE_UP is not a setting declared in config/settings.py"]
    broken["services"]["api"]["depends_on"]["no-such-service"] = {
        "condition": "service_started"}
    assert compose_depends_problems(broken)
    broken["services"]["worker-fast"]["environment"] = {
        "PRESIDENT_AI_ENGINES": "easy=elsewhere:50051"}
    assert compose_engine_problems(broken)


def test_the_nginx_check_rejects_other_upstreams(compose: dict[str, Any]) -> None:
    text = nginx_text()
    assert nginx_problems(text.replace("api:8000", "apii:8000"), compose)
    assert nginx_problems(text.replace("proxy_buffering off", "proxy_buffering on"), compose)


def test_the_k8s_checks_reject_broken_copies(k8s: list[dict[str, Any]]) -> None:
    broken = copy.deepcopy(k8s)
    deployments = objects(broken, "Deployment")
    api = first_container(deployments["president-api"])
    api["readinessProbe"]["httpGet"]["path"] = "/healthz"
    del api["resources"]["requests"]
    api["env"].append({"name": "NOT_A_PRESIDENT_SETTING", "value": "1"})
    worker = first_container(deployments["president-ai-worker"])
    worker["livenessProbe"]["grpc"]["port"] = 50052
    worker["args"] = ["ai-worker", "--threads", "2"]
    objects(broken, "Service")["president-api"]["spec"]["selector"]["x"] = "y"
    objects(broken, "HorizontalPodAutoscaler")["president-worker-slow"]["spec"][
        "scaleTargetRef"]["name"] = "president-worker-gone"
    first_container(deployments["president-worker-slow"])["args"][2] = "ai.hard"
    assert k8s_probe_problems(broken)
    assert k8s_resource_problems(broken)
    assert k8s_env_problems(broken)
    assert k8s_command_problems(broken)
    assert k8s_selector_problems(broken)
    assert k8s_hpa_problems(broken)
    assert k8s_queue_problems(broken) == ["k8s: queue ai.expert is consumed by no Celery worker"]


def test_the_dockerfile_check_rejects_root_and_other_entrypoints() -> None:
    text = DOCKERFILE.read_text()
    assert dockerfile_problems(text.replace("USER president:president", "USER root"))
    assert dockerfile_problems(text.replace('ENTRYPOINT ["president"]',
                                            'ENTRYPOINT ["python"]'))
    assert dockerfile_problems(text.replace("COPY workers/ workers/\n", ""))
