"""The town (tile map, location tree, paths), simulations, the clock and the event log."""
