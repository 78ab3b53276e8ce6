"""Model profiles over HTTP, and a simulation's routes to them."""
