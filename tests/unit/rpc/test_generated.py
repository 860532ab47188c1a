"""The generated protobuf package: up to date with protos/, importable, typed, and kept
out of the engine."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
GENERATED = ROOT / "generated"
MODULE_DIR = GENERATED / "president" / "ai" / "v1"


def run_generate(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(root / "protos" / "generate.py"), *args],
                          cwd=root, capture_output=True, text=True, timeout=120)


def test_generated_code_is_up_to_date() -> None:
    done = run_generate(ROOT, "--check")
    assert done.returncode == 0, done.stderr
    assert "stale" not in done.stderr


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    """protos/ and generated/ copied elsewhere: the script finds its files from its own
    location, so the copy can be spoiled without touching the project."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "protos", tmp_path / "protos", ignore=ignore)
    shutil.copytree(GENERATED, tmp_path / "generated", ignore=ignore)
    return tmp_path


def test_check_passes_on_an_untouched_copy(project_copy: Path) -> None:
    """The control for the tests below: the copy itself is not stale."""
    done = run_generate(project_copy, "--check")
    assert done.returncode == 0, done.stderr


def test_check_fails_when_a_generated_file_was_edited(project_copy: Path) -> None:
    edited = project_copy / "generated" / "president" / "ai" / "v1" / "ai_pb2.py"
    edited.write_text(edited.read_text() + "# edited by hand\n")
    done = run_generate(project_copy, "--check")
    assert done.returncode == 1
    assert "stale: generated/president/ai/v1/ai_pb2.py" in done.stderr.splitlines()
    assert (ROOT / "generated" / "president" / "ai" / "v1" / "ai_pb2.py").read_text() \
        != edited.read_text()  # the project's own file was never touched
    # generating again repairs the copy
    assert run_generate(project_copy).returncode == 0
    assert run_generate(project_copy, "--check").returncode == 0


def test_check_fails_when_a_generated_file_is_missing_or_extra(project_copy: Path) -> None:
    (project_copy / "generated" / "president" / "ai" / "v1" / "ai_pb2.pyi").unlink()
    (project_copy / "generated" / "president" / "stray.py").write_text("x = 1\n")
    done = run_generate(project_copy, "--check")
    assert done.returncode == 1
    assert set(done.stderr.split()) >= {"generated/president/ai/v1/ai_pb2.pyi",
                                        "generated/president/stray.py"}


def test_check_fails_when_the_proto_changed(project_copy: Path) -> None:
    proto = project_copy / "protos" / "president" / "ai" / "v1" / "ai.proto"
    text = proto.read_text()
    assert "message Budget {\n" in text
    proto.write_text(text.replace("message Budget {\n", "message Budget {\n  string note = 9;\n",
                                  1))
    done = run_generate(project_copy, "--check")
    assert done.returncode == 1
    assert "generated/president/ai/v1/ai_pb2.py" in done.stderr


def test_the_generated_package_imports_from_generated() -> None:
    import president
    from president.ai.v1 import ai_pb2, ai_pb2_grpc

    assert [Path(p).resolve() for p in president.__path__] == [GENERATED / "president"]
    assert Path(ai_pb2.__file__).resolve() == MODULE_DIR / "ai_pb2.py"
    service = ai_pb2.DESCRIPTOR.services_by_name["AiService"]
    assert service.full_name == "president.ai.v1.AiService"
    decide = service.methods_by_name["Decide"]
    assert decide.input_type.full_name == "president.ai.v1.DecideRequest"
    assert decide.output_type.full_name == "president.ai.v1.DecideResponse"
    for name in ("AiServiceStub", "AiServiceServicer", "add_AiServiceServicer_to_server"):
        assert hasattr(ai_pb2_grpc, name)


def test_every_message_and_enum_has_a_stub_in_the_pyi() -> None:
    from president.ai.v1 import ai_pb2

    stub = MODULE_DIR / "ai_pb2.pyi"
    tree = ast.parse(stub.read_text(), str(stub))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    names = set(ai_pb2.DESCRIPTOR.message_types_by_name) | set(
        ai_pb2.DESCRIPTOR.enum_types_by_name)
    assert names >= {"DecideRequest", "DecideResponse", "SeatView", "Budget", "Rules",
                     "Phase", "Role", "ExchangeView"}
    assert names <= set(classes)
    # the message stubs type their fields
    seat_view = ai_pb2.DESCRIPTOR.message_types_by_name["SeatView"]
    annotated = {node.target.id for node in classes["SeatView"].body
                 if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    assert {f.name for f in seat_view.fields} <= annotated


def test_every_proto_package_is_a_python_package() -> None:
    for package in (GENERATED / "president", GENERATED / "president" / "ai", MODULE_DIR):
        assert (package / "__init__.py").is_file()


FOREIGN = ("google", "grpc", "grpc_tools", "grpc_health", "grpc_reflection", "president")


def test_importing_the_engine_loads_no_protobuf_nor_grpc() -> None:
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import engine\n"
        "for m in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    modules = json.loads(done.stdout)
    assert "engine.observe" in modules and "engine.game" in modules
    loaded = [m for m in modules if m.partition(".")[0] in FOREIGN]
    assert loaded == []


def test_the_import_check_sees_protobuf_when_it_is_loaded() -> None:
    """The control: the same check notices protobuf when something does load it."""
    code = ("import json, sys\nimport engine\nimport workers.rpc.serde\n"
            "print(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    modules = json.loads(done.stdout)
    assert "google.protobuf" in modules
    assert [m for m in modules if m.partition(".")[0] in FOREIGN]


def test_no_engine_source_names_protobuf_or_grpc() -> None:
    files = sorted((ROOT / "engine").rglob("*.py"))
    assert len(files) > 5
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.partition(".")[0] not in FOREIGN, f"{path}:{node.lineno} {name}"
