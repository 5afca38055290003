"""This machine, as the daemons see it: the account a job runs as (`accounts`), a
process's line in /proc (`procfs`), files a job could have tampered with (`plainfile`)
and the startd's benchmarks (`benchmarks`). Imports nothing above `errors`."""
