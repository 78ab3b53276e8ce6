"""Evaluations over HTTP: start one on a simulation, list them, read one."""
