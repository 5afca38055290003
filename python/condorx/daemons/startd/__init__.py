"""The startd: a machine's slots. `service` wires the parts: `driver` (the policy state
machine, `states`, `policy`), `claims`, `runs` (starters, `starter_process`), `drains`,
`backfill`, the slot table (`table`, `slots`, `ads`) and the machine (`machine`,
`inputs`)."""
