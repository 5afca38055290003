"""The schedd: the job queue and the runs of its jobs.

`service` wires the parts. The queue: `ledger` (its one writer), `queue` (the table and
transactions), `store` and `history` (on disk), `entry` and `transitions` (how jobs enter
and move), `committed` (the news of each commit). Requests: `intake` (submit), `actions`,
`edits`, `queries`, `transfers`, `route_intake`, `choosing` (which jobs a request names).
Running jobs: `shadow`, `local_jobs`, `follow_up`, `upkeep`, `policy`, `deferral`.
Grid jobs: `gridmanager` and its `grid_*` parts. The job router's side: `routing`.
"""
