"""Integration with other services: API tokens that users manage themselves (issue 34;
the live stream, webhooks and the client come next)."""
