"""Named facts over HTTP: the ones a simulation's base names, and who holds one."""
