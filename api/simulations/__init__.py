"""Simulations over HTTP: create, fork, run control and progress, and the event log."""
