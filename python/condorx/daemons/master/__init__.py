"""The master: starts the machine's daemons, restarts those that die, and answers
condor_off / condor_on / condor_restart (`service`); `main` is `condor_master`."""
