"""Test fixtures: personal pools of real daemons (`pool`, `personal`, `daemon_forks`),
in-process rigs on trio's MockClock (`startd_rig`), HTCondor's own code as an oracle
(`submit_oracle`, `bindings`, `cedar_client`) and helpers."""
