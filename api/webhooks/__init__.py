"""The requester's webhooks over HTTP: subscriptions and their deliveries."""
