"""Bases over HTTP: the requester's and the shipped ones, copied and edited."""
