"""The pool simulator: many simulated execute machines in one process, speaking the real
startd protocol to the real collector, negotiator and schedd (see `service`)."""
