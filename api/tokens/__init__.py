"""The requester's API tokens over HTTP."""
