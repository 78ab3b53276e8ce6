"""A simulation's live event stream over HTTP (Server-Sent Events)."""
