"""Towns over HTTP: a town, its place tree, and walks between places."""
