"""A client per daemon (`collector`, `schedd`, `startd`, `negotiator`, `master`) and the
kept connections a daemon holds to its peers (`peers`). The tools and the daemons use
these; they sit over `transport`."""
