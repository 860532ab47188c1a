# One image for every role of the Président backend: the role is the command.
#   docker build -t president .
#   docker run president api --host 0.0.0.0 --port 8000
#   docker run president ai-worker --host 0.0.0.0 --port 50051 --processes 2
#   docker run president celery-worker --queues ai.hard,ai.expert
# deploy/compose.yaml and deploy/k8s/ run every role from it; tests/deploy checks them.

# --- build: the project and its pinned dependencies into a virtualenv -----------------
FROM python:3.11-slim AS build

# pip compiles the bytecode here: the runtime user cannot write into /opt/venv.
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src
# Only what pyproject.toml packages (README.md: its `readme`); tests, docs and deploy
# files stay out of the image.
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY config/ config/
COPY bootstrap/ bootstrap/
COPY services/ services/
COPY web/ web/
COPY workers/ workers/
COPY benchmarks/ benchmarks/
COPY president_cli/ president_cli/
COPY generated/ generated/
RUN pip install --no-cache-dir .

# --- runtime: the virtualenv only, run by an unprivileged user -------------------------
FROM python:3.11-slim

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN groupadd --system --gid 10001 president \
 && useradd --system --uid 10001 --gid president --home-dir /app --no-create-home \
            --shell /usr/sbin/nologin president \
 && mkdir -p /app/var \
 && chown -R president:president /app
COPY --from=build /opt/venv /opt/venv

WORKDIR /app
USER president:president

# 8000: `president api` (REST, /healthz, /readyz, /metrics); 50051: `president ai-worker`.
EXPOSE 8000 50051
# No HEALTHCHECK here: each role has its own probe (GET /readyz for the API,
# `president health grpc` for an AI worker, `president health celery` for a Celery
# worker), set by deploy/compose.yaml and the Kubernetes manifests.
ENTRYPOINT ["president"]
CMD ["--help"]
