"""Integration with other services: API tokens that users manage themselves, the live
stream, webhooks and what the Python client relies on."""
