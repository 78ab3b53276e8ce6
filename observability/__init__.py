"""The service seen from outside (docs/operations.md, "Monitoring"): health and readiness
for a load balancer or an orchestrator (health.py)."""
