"""What every daemon is built on, as HTCondor's DaemonCore: the accept loop and command
dispatch (`server`), authorization (`authz`), the audit log, batch requests (`batch`),
queries over ads (`query`), the advertise loop (`advertiser`), running as a process
(`run`, `task_dump`), and the rules two daemons share: which jobs are matchable
(`matchable`), job hooks (`hooks`) and job leases (`job_lease`)."""
