"""Webhook delivery: the HTTP sender (Standard Webhooks signatures, no server-side request
forgery) and the Celery queue that hands messages to the delivery task."""
