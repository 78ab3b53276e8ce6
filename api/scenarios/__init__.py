"""Scenarios over HTTP: a simulation's timed interventions."""
