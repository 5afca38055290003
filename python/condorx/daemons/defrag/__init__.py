"""condor_defrag: the daemon that drains partitionable machines for whole-machine jobs
(`service`), its arithmetic and choices (`policy`), and what it publishes (`record`)."""
