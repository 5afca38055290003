"""The submit language's names: the commands' canonical spellings, their other spellings
(`RequestCpus = 2` sets request_cpus when request_cpus itself is not set, as in HTCondor,
while `$(RequestCpus)` is still that line's own value), and the simple commands that set
one attribute each, with how the value is read.
"""

from __future__ import annotations

import functools
from enum import Enum

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


class Kind(Enum):
    STRING = "string"  # stored as a string, as written (quotes typed are kept)
    STRIPPED = "stripped"  # a string, one pair of surrounding double quotes taken off
    PATH = "path"  # a file name, made absolute against initialdir
    LIST = "list"  # a comma list, stored as a string without blanks around the commas
    BOOL = "bool"  # true/false, or an expression
    EXPR = "expr"  # an expression (a number stays a number)
    INT = "int"  # a whole integer and nothing else (HTCondor reads it with strtol to its end)


# command -> (attribute, kind): commands that set one attribute and nothing else (HTCondor's
# simple keyword table, in its order).
SIMPLE: dict[str, tuple[str, Kind]] = {
    "next_job_start_delay": ("NextJobStartDelay", Kind.EXPR),
    "delegate_job_gsi_credentials_lifetime": ("DelegateJobGSICredentialsLifetime", Kind.INT),
    "keep_claim_idle": ("KeepClaimIdle", Kind.EXPR),
    "job_ad_information_attrs": ("JobAdInformationAttrs", Kind.STRING),
    "ulog_execute_attrs": ("UserLogExecuteEventAttrs", Kind.STRING),
    "max_idle": ("JobMaterializeMaxIdle", Kind.EXPR),
    "materialize_max_idle": ("JobMaterializeMaxIdle", Kind.EXPR),
    "docker_network_type": ("DockerNetworkType", Kind.STRING),
    "docker_pull_policy": ("DockerPullPolicy", Kind.STRING),
    "docker_override_entrypoint": ("DockerOverrideEntrypoint", Kind.BOOL),
    "container_target_dir": ("ContainerTargetDir", Kind.STRIPPED),
    "transfer_container": ("TransferContainer", Kind.BOOL),
    "transfer_plugins": ("TransferPlugins", Kind.STRING),
    "want_io_proxy": ("WantIOProxy", Kind.BOOL),
    "starter_debug": ("JobStarterDebug", Kind.STRIPPED),
    "starter_log": ("JobStarterLog", Kind.PATH),
    "job_machine_attrs": ("JobMachineAttrs", Kind.STRING),
    "job_machine_attrs_history_length": ("JobMachineAttrsHistoryLength", Kind.EXPR),
    "notify_user": ("NotifyUser", Kind.STRING),
    "email_attributes": ("EmailAttributes", Kind.LIST),
    "remote_initialdir": ("RemoteIwd", Kind.STRING),
    "remote_grid_resource": ("Remote_GridResource", Kind.STRING),
    "remote_remote_grid_resource": ("Remote_Remote_GridResource", Kind.STRING),
    "output_destination": ("OutputDestination", Kind.STRING),
    "want_graceful_removal": ("WantGracefulRemoval", Kind.EXPR),
    "job_max_vacate_time": ("JobMaxVacateTime", Kind.EXPR),
    "encrypt_execute_directory": ("EncryptExecuteDirectory", Kind.BOOL),
    "encrypt_input_files": ("EncryptInputFiles", Kind.STRING),
    "encrypt_output_files": ("EncryptOutputFiles", Kind.STRING),
    "dont_encrypt_input_files": ("DontEncryptInputFiles", Kind.STRING),
    "dont_encrypt_output_files": ("DontEncryptOutputFiles", Kind.STRING),
    "load_profile": ("LoadProfile", Kind.BOOL),
    "file_remaps": ("FileRemaps", Kind.EXPR),
    "buffer_files": ("BufferFiles", Kind.EXPR),
    "buffer_size": ("BufferSize", Kind.EXPR),
    "buffer_block_size": ("BufferBlockSize", Kind.EXPR),
    "fetch_files": ("FetchFiles", Kind.STRING),
    "compress_files": ("CompressFiles", Kind.STRING),
    "append_files": ("AppendFiles", Kind.STRING),
    "local_files": ("LocalFiles", Kind.STRING),
    "dagman_log": ("DAGManNodesLog", Kind.PATH),
    "log_xml": ("UserLogUseXML", Kind.BOOL),
    "noop_job": ("IsNoopJob", Kind.EXPR),
    "noop_job_exit_signal": ("NoopJobExitSignal", Kind.EXPR),
    "noop_job_exit_code": ("NoopJobExitCode", Kind.EXPR),
    "dag_node_name": ("DAGNodeName", Kind.STRING),
    "match_list_length": ("LastMatchListLength", Kind.EXPR),
    "dagman_job_id": ("DAGManJobId", Kind.EXPR),
    "submit_event_notes": ("SubmitEventNotes", Kind.STRING),
    "submit_event_user_notes": ("SubmitEventUserNotes", Kind.STRING),
    "stack_size": ("StackSize", Kind.EXPR),
    "jar_files": ("JarFiles", Kind.STRING),
    "parallel_script_shadow": ("ParallelScriptShadow", Kind.STRING),
    "parallel_script_starter": ("ParallelScriptStarter", Kind.STRING),
    "description": ("JobDescription", Kind.STRING),
    "batch_name": ("JobBatchName", Kind.STRIPPED),
    "batch_id": ("JobBatchId", Kind.STRIPPED),
    "max_job_retirement_time": ("MaxJobRetirementTime", Kind.EXPR),
    "job_lease_duration": ("JobLeaseDuration", Kind.EXPR),
    "core_size": ("CoreSize", Kind.EXPR),
    "coresize": ("CoreSize", Kind.EXPR),
    "run_as_owner": ("RunAsOwner", Kind.BOOL),
    "max_transfer_input_mb": ("MaxTransferInputMB", Kind.EXPR),
    "max_transfer_output_mb": ("MaxTransferOutputMB", Kind.EXPR),
    "manifest": ("ManifestDesired", Kind.BOOL),
    "manifest_dir": ("ManifestDir", Kind.STRING),
    "checkpoint_destination": ("CheckpointDestination", Kind.STRING),
    "aws_region": ("AWSRegion", Kind.STRING),
    "erase_output_and_error_on_restart": ("EraseOutputAndErrorOnRestart", Kind.BOOL),
    "transfer_checkpoint_files": ("TransferCheckpoint", Kind.STRING),
    "preserve_relative_paths": ("PreserveRelativePaths", Kind.BOOL),
    "skip_if_dataflow": ("SkipIfDataflow", Kind.BOOL),
    "allowed_job_duration": ("AllowedJobDuration", Kind.EXPR),
    "allowed_execute_duration": ("AllowedExecuteDuration", Kind.EXPR),
    "jobset": ("JobSetName", Kind.STRIPPED),
    "kill_sig_timeout": ("KillSigTimeout", Kind.EXPR),
    "java_vm_args": ("JavaVMArgs", Kind.STRING),
    "arc_rte": ("ArcRte", Kind.STRING),
    "batch_extra_submit_args": ("BatchExtraSubmitArgs", Kind.STRING),
    "batch_project": ("BatchProject", Kind.STRING),
    "batch_queue": ("BatchQueue", Kind.STRING),
    "batch_runtime": ("BatchRuntime", Kind.EXPR),
    "want_parallel_scheduling": ("WantParallelScheduling", Kind.BOOL),
}

# Job-attribute spellings of commands (compared without case), as HTCondor accepts them.
_ALIASES = {
    "requestcpus": "request_cpus",
    "requestmemory": "request_memory",
    "requestdisk": "request_disk",
    "requestgpus": "request_gpus",
    "requiregpus": "require_gpus",
    "jobbatchname": "batch_name",
    "whentotransferoutput": "when_to_transfer_output",
    "shouldtransferfiles": "should_transfer_files",
    "transferinput": "transfer_input_files",
    "transferoutput": "transfer_output_files",
    "transferoutputremaps": "transfer_output_remaps",
    "transferexecutable": "transfer_executable",
    "jobprio": "priority",
    "prio": "priority",
    "jobuniverse": "universe",
    "killsig": "kill_sig",
    "removekillsig": "remove_kill_sig",
    "holdkillsig": "hold_kill_sig",
    "initial_dir": "initialdir",
    "iwd": "initialdir",
    "job_iwd": "initialdir",
    "args": "arguments",
    "env": "environment",
    "get_env": "getenv",
    "stdin": "input",
    "stdout": "output",
    "stderr": "error",
    "preferences": "rank",
    "transferinputfiles": "transfer_input_files",
    "transferoutputfiles": "transfer_output_files",
    "java_vm_arguments": "java_vm_args",
    "machinecount": "machine_count",
    "node_count": "machine_count",
    "nodecount": "machine_count",
    "cronwindow": "cron_window",
    "cronpreptime": "cron_prep_time",
    "imagesize": "image_size",
    "diskusage": "disk_usage",
    "useoauthservices": "use_oauth_services",
    "containerservicenames": "container_service_names",
    "killsigtimeout": "kill_sig_timeout",
    "gpusminmemory": "gpus_minimum_memory",
    "gpusmincapability": "gpus_minimum_capability",
    "gpusmaxcapability": "gpus_maximum_capability",
    "concurrencylimits": "concurrency_limits",
    "niceuser": "nice_user",
    "leavejobinqueue": "leave_in_queue",
    "jobleaseduration": "job_lease_duration",
    "jobmaxvacatetime": "job_max_vacate_time",
    "maxjobretirementtime": "max_job_retirement_time",
    "jobnotification": "notification",
    "notifyuser": "notify_user",
    "jobdescription": "description",
    "containerimage": "container_image",
    "dockerimage": "docker_image",
    "jobmaxretries": "max_retries",
    "successexitcode": "success_exit_code",
    "jobsuccessexitcode": "success_exit_code",
    "onexitremove": "on_exit_remove",
    "onexithold": "on_exit_hold",
    "periodichold": "periodic_hold",
    "periodicremove": "periodic_remove",
    "periodicrelease": "periodic_release",
    "deferraltime": "deferral_time",
    "deferralwindow": "deferral_window",
    "deferralpreptime": "deferral_prep_time",
    "crontab": "cron",
    "userlog": "log",
    "gridresource": "grid_resource",
    "accountinggroup": "accounting_group",
    "acctgroup": "accounting_group",
    "acctgroupuser": "accounting_group_user",
}


# The attribute a simple command sets is another spelling of it (`NotifyUser = x`).
for _command, (_attr, _kind) in SIMPLE.items():
    _ALIASES.setdefault(_attr.lower(), _command)


# command -> its other spellings, in the order they are looked up when it is not set.
ALTERNATES: dict[str, tuple[str, ...]] = {}
for _alt, _command in _ALIASES.items():
    ALTERNATES[_command] = (*ALTERNATES.get(_command, ()), _alt)


def canonical(name: str) -> str:
    """The command a name spells, lower-cased (any other name: itself, lower-cased)."""
    low = name.lower()
    return _ALIASES.get(low, low)


@functools.cache
def spellings(command: str) -> tuple[str, ...]:
    """The names a command may be set by: its own first, then its other spellings (asked
    millions of times for a large submission, of a few hundred names)."""
    return (command, *ALTERNATES.get(command, ()))


def static() -> dict[str, Any]:
    """Attributes every new job starts with, as condor_submit writes them."""
    return {
        "MyType": "Job",
        "TargetType": "Machine",
        "CommittedTime": 0,
        "CommittedSlotTime": 0,
        "CommittedSuspensionTime": 0,
        "CumulativeSlotTime": 0,
        "CumulativeSuspensionTime": 0,
        "CumulativeRemoteSysCpu": 0.0,
        "CumulativeRemoteUserCpu": 0.0,
        "RemoteWallClockTime": 0.0,
        "RemoteUserCpu": 0.0,
        "RemoteSysCpu": 0.0,
        "ExitBySignal": False,
        "ExitStatus": 0,
        "LastSuspensionTime": 0,
        "TotalSuspensions": 0,
        "NumCkpts": 0,
        "NumJobCompletions": 0,
        "NumJobStarts": 0,
        "NumRestarts": 0,
        "NumSystemHolds": 0,
        "MinHosts": 1,
        "MaxHosts": 1,
        "CurrentHosts": 0,
    }
