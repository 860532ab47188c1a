"""A worker process's composition root: its database, its gRPC client, its scheduler.
Built on the first task a process runs, after the fork (gRPC channels must not cross
one)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from celery import Celery

from engine import View
from engine.plays import Action
from services.container import Container
from services.settings import setting
from services.store.uow import UnitOfWork
from workers.rpc.client import AiClient, engines_from_env
from workers.turns.scheduler import CeleryScheduler
from workers.turns.settings import TurnSettings


@dataclass
class Runtime:
    container: Container
    ai: AiClient
    scheduler: CeleryScheduler
    deadline_s: float

    @classmethod
    def build(cls, app: Celery, settings: TurnSettings) -> Runtime:
        scheduler = CeleryScheduler(app)
        container = replace(Container.build(setting("DATABASE_URL")), scheduler=scheduler)
        return cls(container, AiClient(engines_from_env()), scheduler, settings.ai_deadline_s)

    def uow(self) -> UnitOfWork:
        return self.container.uow()

    def decide(self, view: View, engine: str) -> Action:
        """The engine's answer, checked against the view's legal actions by the client."""
        return self.ai.decide(view, engine, seed=len(view.history), timeout_s=self.deadline_s)
