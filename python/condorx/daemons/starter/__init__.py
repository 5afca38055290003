"""The starter: one per claim, it runs the job's processes in a scratch sandbox
(`service`, `launch`, `sandbox`, `scratch`), measures them (`usage`) and waits out a
job's deferral (`deferral`)."""
