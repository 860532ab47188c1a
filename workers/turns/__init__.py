"""AI turns through Celery to the gRPC workers: the production turn scheduler.

``app.make_celery`` builds the Celery app (broker, queues, reliability settings, beat
schedule) and registers ``tasks``; ``scheduler.CeleryScheduler`` is the service's
``TurnScheduler`` that enqueues them; ``embedded`` looks after the SQLite broker."""
