"""Webhooks: users subscribe URLs to what happens to their simulations and evaluations;
each delivery is signed, sent by a Celery task, retried with backoff and logged."""
