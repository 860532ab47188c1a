"""An engine named ``tls://host:port`` is called over TLS, and checked against the roots
the settings name: a bot run by someone else can be reached across a network it does not
trust, and one without the expected certificate is refused."""

from __future__ import annotations

import subprocess
from concurrent import futures
from pathlib import Path
from typing import Iterator

import grpc
import pytest

from president.ai.v1 import ai_pb2_grpc
from rpchelpers import choice_views
from workers.rpc.client import AiClient, AiUnavailable, tls_roots_from_env
from workers.rpc.server import AiServicer


def _self_signed(folder: Path, name: str) -> tuple[bytes, bytes]:
    key, cert = folder / f"{name}.key", folder / f"{name}.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return key.read_bytes(), cert.read_bytes()


@pytest.fixture
def tls_bot(tmp_path: Path) -> Iterator[tuple[str, bytes, Path]]:
    key, cert = _self_signed(tmp_path, "bot")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    ai_pb2_grpc.add_AiServiceServicer_to_server(AiServicer(), server)
    port = server.add_secure_port("localhost:0", grpc.ssl_server_credentials([(key, cert)]))
    server.start()
    try:
        yield f"localhost:{port}", cert, tmp_path
    finally:
        server.stop(0)


def test_a_tls_engine_answers_when_its_certificate_is_trusted(
        tls_bot: tuple[str, bytes, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    address, cert, folder = tls_bot
    (folder / "roots.pem").write_bytes(cert)
    monkeypatch.setenv("PRESIDENT_AI_TLS_ROOTS", str(folder / "roots.pem"))
    view = choice_views(1, seed=5)[0]
    with AiClient({"normal": f"tls://{address}"}, tls_roots=tls_roots_from_env()) as client:
        assert client.decide(view, "normal", timeout_s=10) in view.legal_actions


def test_a_tls_engine_with_another_certificate_or_in_the_clear_is_refused(
        tls_bot: tuple[str, bytes, Path]) -> None:
    address, _, folder = tls_bot
    _, stranger = _self_signed(folder, "stranger")
    view = choice_views(1, seed=5)[0]
    for engines, roots in (({"normal": f"tls://{address}"}, stranger),  # not the roots it has
                           ({"normal": address}, None)):  # no TLS at all
        with AiClient(engines, tls_roots=roots) as client:
            with pytest.raises(AiUnavailable) as refused:
                client.decide(view, "normal", timeout_s=3)
            assert refused.value.code == grpc.StatusCode.UNAVAILABLE  # the handshake failed
