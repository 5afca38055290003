"""The daemons, one package each: `collector`, `negotiator`, `schedd`, `startd`, `starter`,
`job_router`, `master`. What they share (the accept loop, authorization, the advertise
loop, running a daemon as a process) is in `core`. `python -m condorx.daemons NAME`
runs one."""
