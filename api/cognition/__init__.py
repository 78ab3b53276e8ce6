"""Plans and conversations over HTTP: a resident's plan tree, a simulation's conversations."""
