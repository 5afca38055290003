"""The languages condorx reads and writes, each as HTCondor defines it:

- ClassAds themselves are `condorx.classad` (at the package root, a drop-in for
  `classad2`); `analyze`: why a job does not match; `attrs`: job attribute values with
  HTCondor's numbers.
- `cron`: CronTab schedules; `negotiation`: the matchmaking cycle (both in the core).
- `config`: the configuration language; `submit`: submit files to job ads; `dag`: DAG
  files; `argsyntax`: argument and environment syntaxes; `eventlog`: user logs;
  `history`: the history file.

Nothing here knows about connections or daemons.
"""
