"""What the viewer reads over HTTP: a town's map and a simulation's replay."""
