# ruff: noqa: E501 - a table of submit lines, each kept on one line to read as written
"""Writes the generated half of the submit corpus: one small file per command form and per
queue form, each a base job plus the lines under test. Run from the project root:

    .venv/bin/python tests/submit/oracle/generate.py

then make the oracle's answers (see answers.py). The files are committed, so CI needs neither.
"""

from __future__ import annotations

import re
from pathlib import Path

BASE = "executable = /bin/echo\n"

# name -> the lines under test (a `queue` line is added when the case has none).
CASES: dict[str, str] = {
    "plain": "",
    "arguments_old": "arguments = -n hello world\n",
    "arguments_new": 'arguments = "-n \'hello world\' x""y"\n',
    "args_alias": "args = a b c\n",
    "environment_old": "environment = A=1;B=two\n",
    "environment_new": "environment = \"A=1 B='two words'\"\n",
    "getenv_true": "getenv = true\n",
    "getenv_false": "getenv = false\n",
    "getenv_list": "getenv = HOME, PATH\n",
    "getenv_pattern": "getenv = CONDOR_*, !CONDOR_CONFIG\n",
    "input_output_error": "input = in.txt\noutput = out.$(Cluster).$(Process)\nerror = err.txt\n",
    "log": "log = job.log\n",
    "log_xml": "log = job.log\nlog_xml = true\n",
    "initialdir": "initialdir = sub/dir\noutput = out\n",
    "initialdir_abs": "initialdir = /tmp\noutput = out\n",
    "executable_relative": "executable = bin/run.sh\ninitialdir = elsewhere\n",
    "request_cpus": "request_cpus = 4\n",
    "request_cpus_expr": "request_cpus = MY.DaskWorkerCores\n+DaskWorkerCores = 2\n",
    "RequestCpus_attr": "RequestCpus = 3\n",
    "request_memory_units": "request_memory = 2GB\n",
    "request_memory_plain": "request_memory = 1500\n",
    "request_memory_expr": "request_memory = ifThenElse(MemoryUsage =!= undefined, MemoryUsage * 2, 1024)\n",
    "request_memory_mb": "request_memory = 512 MB\n",
    "request_disk_units": "request_disk = 1G\n",
    "request_disk_plain": "request_disk = 100000\n",
    "request_gpus": "request_gpus = 1\n",
    "require_gpus": "request_gpus = 1\nrequire_gpus = Capability >= 7.0\n",
    "gpus_minimum_memory": "request_gpus = 1\ngpus_minimum_memory = 8G\n",
    "request_custom": "request_foo = 2\n",
    "requirements": 'requirements = (Machine == "a.example")\n',
    "requirements_memory": "requirements = Memory > 4000\n",
    "requirements_arch": 'requirements = Arch == "ARM"\n',
    "requirements_opsys": 'requirements = OpSys == "WINDOWS" || OpSysAndVer == "CentOS7"\n',
    "rank": "rank = Memory\n",
    "priority": "priority = 10\n",
    "prio_negative": "priority = -5\n",
    "nice_user": "nice_user = true\n",
    "accounting_group": "accounting_group = group_physics\naccounting_group_user = alice\n",
    "batch_name": "batch_name = my batch\n",
    "JobBatchName_attr": 'JobBatchName = "quoted batch"\n',
    "hold_true": "hold = true\n",
    "hold_false": "hold = false\n",
    "notification_always": "notification = Always\nnotify_user = a@b.c\n",
    "notification_error": "notification = error\n",
    "kill_sig": "kill_sig = SIGINT\n",
    "remove_kill_sig": "remove_kill_sig = SIGUSR1\n",
    "hold_kill_sig": "hold_kill_sig = SIGTERM\n",
    "kill_sig_timeout": "kill_sig_timeout = 30\n",
    "transfer_yes": "should_transfer_files = YES\nwhen_to_transfer_output = ON_EXIT\n",
    "transfer_no": "should_transfer_files = NO\n",
    "transfer_if_needed": "should_transfer_files = IF_NEEDED\n",
    "transfer_evict": "should_transfer_files = YES\nwhen_to_transfer_output = ON_EXIT_OR_EVICT\n",
    "transfer_input_files": "transfer_input_files = a.txt, b.txt,c.txt\n",
    "transfer_input_quoted": 'transfer_input_files = "a b.txt", c.txt\n',
    "transfer_input_url": "transfer_input_files = https://example.org/data.tgz, local.txt\n",
    "transfer_input_osdf": "transfer_input_files = osdf:///ospool/x/y.dat\n",
    "transfer_output_files": "transfer_output_files = out1, out2\n",
    "transfer_output_remaps": 'transfer_output_remaps = "out1 = results/out1.$(Process); out2=r2"\n',
    "transfer_executable_false": "transfer_executable = false\n",
    "stream_output": "stream_output = true\nstream_error = true\n",
    "transfer_output_false": "output = o\ntransfer_output = false\n",
    "leave_in_queue": "leave_in_queue = true\n",
    "leave_in_queue_expr": "leave_in_queue = JobStatus == 4 && (CompletionDate =?= UNDEFINED || CompletionDate == 0)\n",
    "job_lease_duration": "job_lease_duration = 600\n",
    "max_retries": "max_retries = 3\n",
    "max_retries_success": "max_retries = 3\nsuccess_exit_code = 2\n",
    "retry_until": "max_retries = 5\nretry_until = ExitCode == 0\n",
    "on_exit_remove": "on_exit_remove = ExitCode == 0\n",
    "on_exit_hold": 'on_exit_hold = ExitCode != 0\non_exit_hold_reason = "bad exit"\non_exit_hold_subcode = 7\n',
    "periodic_hold": 'periodic_hold = (time() - QDate) > 3600\nperiodic_hold_reason = "too long"\n',
    "periodic_remove": "periodic_remove = JobStatus == 5\n",
    "periodic_release": "periodic_release = NumJobStarts < 3\n",
    "concurrency_limits": "concurrency_limits = DB, Licence:2\n",
    "concurrency_limits_expr": 'concurrency_limits_expr = strcat("x", "y")\n',
    "machine_count_parallel": "universe = parallel\nmachine_count = 4\n",
    "use_oauth_services": "use_oauth_services = scitokens, box\n",
    "submit_event_notes": "submit_event_notes = hello there\n",
    "job_machine_attrs": "job_machine_attrs = Machine, SlotID\n",
    "coresize": "coresize = 0\n",
    "image_size": "image_size = 100000\n",
    "max_job_retirement_time": "max_job_retirement_time = 300\n",
    "allowed_execute_duration": "allowed_execute_duration = 3600\nallowed_job_duration = 7200\n",
    "encrypt_execute_directory": "encrypt_execute_directory = true\n",
    "want_graceful_removal": "want_graceful_removal = true\n",
    "job_max_vacate_time": "job_max_vacate_time = 120\n",
    "x509userproxy_missing": "x509userproxy = /nonexistent/proxy\n",
    "dagnode": '+DAGNodeName = "A"\n+DAGManJobId = 42\nDAG_STATUS = 0\n',
    "plus_string": '+ProjectName = "OSG-Staff"\n',
    "plus_empty": "+projectname =\n",
    "plus_expr": "+Wanted = Memory > 100 && TARGET.Cpus >= 1\n",
    "my_attr": 'MY.Foo = $(Cluster) + 1\nMY.Bar = "$(Process)"\n',
    "user_macro": "betastar = 0.5\narguments = $(betastar)\n",
    "unused_macro": "betastar = 0.5\n",
    "macro_default": "arguments = $(undefined_thing:fallback)\n",
    "macro_functions": "name = /a/b/file.tar.gz\narguments = $Fn(name) $Fx(name) $Fp(name) $Fd(name) $Fnx(name)\n",
    "macro_function_quote": "name = a/b.txt\n+Quoted = $Fq(name)\n",
    "macro_int_real": "n = 7\narguments = $INT(n,%03d) $REAL(n,%.2f)\n",
    "macro_choice": "arguments = $CHOICE(1, a, b, c)\n",
    "macro_env": "arguments = $ENV(HOME)\n",
    "macro_substr": "s = abcdef\narguments = $SUBSTR(s, 1, 3)\n",
    "universe_vanilla": "universe = vanilla\n",
    "universe_scheduler": "universe = scheduler\n",
    "universe_local": "universe = local\n",
    "universe_java": "universe = java\nexecutable = Hello.class\narguments = Hello 1\n",
    "universe_java_jar": "universe = java\nexecutable = Main.class\njar_files = lib.jar\njava_vm_args = -Xmx1g\n",
    "universe_docker": "universe = docker\ndocker_image = centos:7\n",
    "universe_docker_noexe": "universe = docker\ndocker_image = centos:7\nexecutable =\n",
    "universe_container": "universe = container\ncontainer_image = docker://python:3.11\n",
    "container_image_sif": "container_image = /cvmfs/images/py.sif\n",
    "container_image_osdf": "container_image = osdf:///ospool/images/py.sif\n",
    "container_service": "container_image = docker://nginx\ncontainer_service_names = web\nweb_container_port = 80\n",
    "docker_network": "universe = docker\ndocker_image = busybox\ndocker_network_type = host\n",
    "universe_grid_condor": "universe = grid\ngrid_resource = condor schedd.example.net cm.example.net\n",
    "universe_grid_batch": "universe = grid\ngrid_resource = batch slurm\n",
    "universe_grid_missing": "universe = grid\n",
    "universe_standard": "universe = standard\n",
    "universe_vm": "universe = vm\n",
    "universe_bad": "universe = nosuch\n",
    "universe_upper": "Universe = Vanilla\n",
    "no_executable": None,
    "deferral_time": "deferral_time = 1798761600\ndeferral_window = 60\ndeferral_prep_time = 30\n",
    "cron": "cron_minute = */15\ncron_hour = 9-17\ncron_window = 60\non_exit_remove = false\n",
    "want_io_proxy": "want_io_proxy = true\n",
    "load_profile": "load_profile = true\n",
    "description": "description = my job\n",
    "starter_debug": "+WantStarterDebug = true\n",
    "checkpoint_exit_code": "checkpoint_exit_code = 85\n",
    "transfer_checkpoint_files": "checkpoint_exit_code = 85\ntransfer_checkpoint_files = ckpt\n",
    "preserve_relative_paths": "preserve_relative_paths = true\ntransfer_input_files = a/b.txt\n",
    "request_memory_with_disk_expr": "request_disk = 2 * 1024 * 1024\n",
    "output_destination": "output_destination = osdf:///ospool/out/\n",
    "manifest": "manifest = true\n",
    "max_materialize": "max_materialize = 10\n",
    "max_idle": "max_idle = 10\n",
    "dont_encrypt": "dont_encrypt_input_files = a\ndont_encrypt_output_files = b\n",
    "skip_filechecks": "skip_filechecks = true\n",
    "stack_size": "stack_size = 1000\n",
    "email_attributes": "email_attributes = ExitCode, RemoteHost\n",
    "want_remote_io": "want_remote_io = false\n",
    "run_as_owner": "run_as_owner = true\n",
    "buffer_size": "buffer_size = 524288\nbuffer_block_size = 32768\n",
    "local_files": "local_files = a.txt\n",
    "cuda_version": "request_gpus = 1\ncuda_version = 11.2\n",
    "next_job_start_delay": "next_job_start_delay = 5\n",
    "keep_claim_idle": "keep_claim_idle = 60\n",
    "job_ad_information_attrs": "job_ad_information_attrs = Foo, Bar\n",
    "ulog_execute_attrs": "ulog_execute_attrs = Cpus, Memory\n",
    "accounting_group_only": "accounting_group = group_a.sub\n",
    "want_job_network": "want_job_network = false\n",
    "docker_override_entrypoint": "universe = docker\ndocker_image = x\ndocker_override_entrypoint = true\n",
    "continuation": "arguments = one \\\n   two \\\n   three\n",
    "comments": "# a comment\n  # indented comment\narguments = x # not a comment\n",
    "case_commands": "EXECUTABLE = /bin/true\nArguments = A\nOutput = O\n",
    "dollar_dollar": '+Machine_ = "$$(Machine)"\n',
    "process_macros": "output = o.$(ClusterId).$(ProcId)\narguments = $(Cluster) $(Process) $(Node)\n",
    "random_integer": "arguments = $RANDOM_INTEGER(5, 5)\n",
    "my_jobid_function": 'MY.JobId = "$(ClusterId).$(ProcId)"\narguments = --name $F(MY.JobId)\n',
    "jobid_macro": "arguments = $(JobId)\n",
    "request_cpus_one": "request_cpus = 1\n",
    "request_cpus_undefined": "request_cpus = undefined\n",
    "request_string_resource": 'request_gpus = 1\nrequest_Pool = "batch.*"\n',
    "plus_request_attr": "+RequestFoo = 3\n",
    "plus_requirements": '+Requirements = TARGET.Arch == "X86_64"\n',
    "if_defined": "if defined wanted\n  arguments = yes\nelse\n  arguments = no\nendif\n",
    "if_version": "if version >= 8.0\n  arguments = new\nendif\n",
    "if_macro_true": "flag = true\nif $(flag)\n  arguments = on\nendif\n",
    "stdin_alias": "stdout = o.txt\nstderr = e.txt\n",
    "notify_never": "notify_user = never\n",
    "getenv_single": "getenv = HOME\n",
    "environment_and_getenv": 'getenv = PATH\nenvironment = "PATH=/opt/bin X=1"\n',
    "transfer_input_spaces": "transfer_input_files = a.txt b.txt, c.txt\n",
    "transfer_input_empty": 'transfer_input_files = ""\n',
    "when_on_success": "should_transfer_files = YES\nwhen_to_transfer_output = ON_SUCCESS\n",
    "wtto_evict_default": "when_to_transfer_output = ON_EXIT_OR_EVICT\n",
    "docker_and_exe": "universe = docker\ndocker_image = python:3\nexecutable = /usr/bin/python3\n",
    "container_dir_image": "container_image = /cvmfs/unpacked/image/\n",
    "gpus_max_capability": "request_gpus = 2\ngpus_maximum_capability = 8.0\ngpus_minimum_capability = 6.0\n",
    "retry_until_int": "max_retries = 2\nretry_until = 3\n",
    "retry_with_on_exit_remove": "max_retries = 2\non_exit_remove = ExitCode == 7\n",
    "nice_with_group": "nice_user = true\naccounting_group = group_x\n",
    "acct_user_only": "accounting_group_user = bob\n",
    "kill_sig_number": "kill_sig = 9\nremove_kill_sig = term\n",
    "leave_in_queue_false": "leave_in_queue = false\n",
    "hold_with_reason": "hold = True\n",
    "priority_expr": "priority = 2 + 3\n",
    "rank_expr": "rank = Memory * 2 + Cpus\n",
    "image_size_units": "image_size = 2 MB\n",
    "disk_usage": "disk_usage = 500\n",
    "output_in_subdir": "output = logs/out.$(Process)\nerror = logs/err.$(Process)\nlog = logs/job.log\n",
    "arguments_empty_quotes": 'arguments = ""\n',
    "arguments_v2_tab": 'arguments = "a\tb"\n',
    "multiple_same_key": "arguments = first\narguments = second\n",
    "self_reference": "arguments = one\narguments = $(arguments) two\n",
    "dollar_literal": "arguments = cost $(DOLLAR)5\n",
    "env_macro_default": "arguments = $ENV(NO_SUCH_VARIABLE:fallback) $ENV(CONDOR_TEST_VALUE)\n",
    "item_unused_var": "queue x in (a, b)\n",
    "universe_number": "universe = 5\n",
    "universe_docker_upper": "universe = Docker\ndocker_image = alpine\n",
    "transfer_executable_no": "transfer_executable = no\n",
    "submit_file_macro": "arguments = $(SUBMIT_FILE)\noutput = $Fn(SUBMIT_FILE).out\n",
    "submit_file_override": "SUBMIT_FILE = other.sub\narguments = $(SUBMIT_FILE)\n",
}

QUEUES: dict[str, str] = {
    "queue_plain": "queue\n",
    "queue_count": "queue 5\n",
    "queue_zero": "queue 0\n",
    "queue_in_inline": "arguments = $(Item)\nqueue in (alpha, beta, gamma)\n",
    "queue_in_multiline": "arguments = $(Item)\nqueue Item in (\n  alpha\n  beta\n)\n",
    "queue_count_in": "arguments = $(Item) $(Step) $(ItemIndex)\nqueue 2 in (p, q)\n",
    "queue_vars_from_inline": "arguments = $(x)-$(y)\nqueue x,y from (\n a b\n c d\n)\n",
    "queue_vars_from_commas": "arguments = $(x)-$(y)-$(z)\nqueue x,y,z from (\n 1, 2, three four\n 5,6,7\n)\n",
    "queue_from_file": "arguments = $(a) $(b)\nqueue a b from items.txt\n",
    "queue_matching_files": "arguments = $(f)\nqueue f matching files *.dat\n",
    "queue_matching_dirs": "initialdir = $(d)\nqueue d matching dirs run*\n",
    "queue_matching_both": "arguments = $(Item)\nqueue matching run* *.dat\n",
    "queue_matching_none": "arguments = $(dir)\nqueue dir matching nomatch*\n",
    "queue_arguments_var": "queue arguments from (\n -a 1\n -b 2\n)\n",
    "queue_executable_var": "queue executable, arguments from (\n /bin/echo, hi\n /bin/true, x\n)\n",
    "queue_output_var": "queue output in (o1, o2)\n",
    "queue_slice": "arguments = $(Item)\nqueue Item in [1:3] (a, b, c, d, e)\n",
    "queue_multiple": "arguments = first\nqueue 2\narguments = second\nqueue 1\n",
    "queue_item_in_executable": "executable = $(Item)\nqueue in (/bin/echo, /bin/true)\n",
    "queue_upper": "QUEUE 2\n",
    "queue_bad_count": "queue many\n",
    "queue_from_command": "arguments = $(x) $(y)\nqueue x y from ./rows.sh |\n",
    "queue_from_blank_rows": "arguments = $(a)\nqueue a from (\n x\n\n y\n)\n",
    "queue_from_empty_name": "arguments = $(a)\nqueue a from $(nothing)\n",
    "queue_none": "arguments = no queue statement\n# queue\n",
}

# Every spelling HTCondor takes for its enumerated commands (enum_utils.cpp, SetUniverse,
# SetNotification), in the case people write them.
SPELLINGS: dict[str, str] = {
    **{
        f"stf_{v}": f"should_transfer_files = {v}\n"
        for v in ("yes", "True", "ALWAYS", "no", "False", "never", "IF_NEEDED", "if_needed", "Auto")
    },
    **{
        f"wtto_{v}": f"should_transfer_files = YES\nwhen_to_transfer_output = {v}\n"
        for v in (
            "on_exit",
            "ONEXIT",
            "On_Exit_Or_Evict",
            "always",
            "ON_SUCCESS",
            "onsuccess",
            "NONE",
        )
    },
    "wtto_none_with_no": "should_transfer_files = NO\nwhen_to_transfer_output = none\n",
    "wtto_null_with_false": "should_transfer_files = false\nwhen_to_transfer_output = NULL\n",
    "wtto_on_exit_with_no": "should_transfer_files = NO\nwhen_to_transfer_output = ON_EXIT\n",
    "wtto_evict_with_if_needed": "should_transfer_files = IF_NEEDED\nwhen_to_transfer_output = ON_EXIT_OR_EVICT\n",
    "wtto_evict_alone": "when_to_transfer_output = ALWAYS\n",
    "stf_no_with_inputs": "should_transfer_files = NO\ntransfer_input_files = a.dat\n",
    "stf_bad": "should_transfer_files = sometimes\n",
    "stf_attr": '+ShouldTransferFiles = "NO"\n',
    **{
        f"notify_{v}": f"notification = {v}\n"
        for v in ("never", "Complete", "ALWAYS", "error", "Start")
    },
    "universe_vanilla_mixed": "universe = Vanilla\n",
    "universe_vanilla_upper": "universe = VANILLA\n",
    "universe_standard": "universe = standard\n",
    "universe_local": "universe = Local\n",
    "universe_scheduler_upper": "universe = SCHEDULER\n",
    "universe_java_mixed": "universe = Java\nexecutable = Hello.class\narguments = Hello\n",
    "universe_parallel": "universe = parallel\nmachine_count = 2\n",
    "universe_container": "universe = container\ncontainer_image = docker://alpine:3\n",
    "universe_docker_image": "universe = docker\ndocker_image = alpine:3\n",
    "universe_grid_condor": "universe = grid\ngrid_resource = condor schedd.example.net cm.example.net\n",
    "universe_grid_batch": "universe = grid\ngrid_resource = batch slurm\n",
    "universe_grid_arc": "universe = grid\ngrid_resource = arc https://arc.example.net:443/arex\n",
    "universe_grid_batch_requests": "universe = grid\ngrid_resource = batch pbs\nrequest_cpus = 4\nbatch_queue = short\nbatch_project = phys\nbatch_runtime = 3600\nbatch_extra_submit_args = -l walltime=1:00:00\n",
    "universe_grid_pbs": "universe = grid\ngrid_resource = pbs\n",
    "universe_grid_bad": "universe = grid\ngrid_resource = gt2 host.example.net/jobmanager-pbs\n",
    "universe_grid_missing": "universe = grid\n",
    "universe_grid_arc_full": "universe = grid\ngrid_resource = arc https://arc.example.net:443/arex\narc_rte = ENV/PROXY\narc_resources = <QueueName>grid</QueueName>\narc_application = <Priority>5</Priority>\narc_data_staging = <InputFile/>\n",
    "universe_grid_ec2": "universe = grid\ngrid_resource = ec2 https://ec2.us-east-1.amazonaws.com/\nexecutable = my-instance\nec2_access_key_id = keys/access\nec2_secret_access_key = keys/secret\nec2_ami_id = ami-1234\nec2_instance_type = m1.small\nec2_keypair_file = kp.pem\nec2_tag_Owner = alice\nec2_tag_names = Owner, Project\nec2_tag_Project = x\nec2_parameter_names = Foo.Bar\nec2_parameter_Foo_Bar = 1\nec2_ebs_volumes = vol-1:sdb\nec2_availability_zone = us-east-1a\n",
    "universe_grid_ec2_role": "universe = grid\ngrid_resource = ec2 https://ec2.example/\nexecutable = vm\nec2_access_key_id = FROM INSTANCE\nec2_secret_access_key = FROM INSTANCE\nec2_ami_id = ami-1\nec2_tag_Name = named\nec2_iam_profile_name = prof\n",
    "universe_grid_ec2_missing_ami": "universe = grid\ngrid_resource = ec2 https://ec2.example/\nexecutable = vm\nec2_access_key_id = a\nec2_secret_access_key = b\n",
    "universe_grid_gce": "universe = grid\ngrid_resource = gce https://www.googleapis.com/compute/v1 proj us-central1-a\nexecutable = vm\ngce_image = img\ngce_machine_type = n1-standard-1\ngce_auth_file = auth.json\ngce_metadata = a=1, b=2\ngce_preemptible = true\ncloud_label_team = hep\n",
    "universe_grid_azure_missing": "universe = grid\ngrid_resource = azure sub-id\nexecutable = vm\nazure_image = img\n",
    "container_target_dir": "container_image = docker://alpine\ncontainer_target_dir = /work\n",
    "container_oras": "container_image = oras://ghcr.io/x/y:1\n",
    "container_relative_sif": "universe = container\ncontainer_image = py.sif\n",
    "container_no_transfer": "container_image = py.sif\ntransfer_container = false\n",
    "container_quoted_image": 'container_image = "docker://alpine:3"\n',
    "docker_quoted_image": 'universe = docker\ndocker_image = "alpine:3"\n',
    "container_quoted_sif": 'container_image = "/cvmfs/x/py.sif"\n',
    "container_and_docker_image": "universe = container\ncontainer_image = docker://a\ndocker_image = b\n",
    "container_docker_universe_image": "universe = docker\ncontainer_image = docker://a\n",
    "container_universe_docker_image": "universe = container\ndocker_image = python:3\n",
    "vanilla_docker_image": "docker_image = docker://python:3\n",
    "local_docker_image": "universe = local\ndocker_image = python:3\n",
    "scheduler_docker_image": "universe = scheduler\ndocker_image = python:3\n",
    "memory_float": "request_memory = 2048.0\nrequest_disk = 1.5\n",
    "memory_float_unit": "request_memory = 1.5G\n",
    "delegate_lifetime": "delegate_job_GSI_credentials_lifetime = 0\n",
    "delegate_lifetime_bad": "delegate_job_GSI_credentials_lifetime = 1h\n",
    "remap_to_url": 'transfer_output_files = out\ntransfer_output_remaps = "out = osdf:///ospool/x/out"\n',
    "node_parallel": "universe = parallel\nmachine_count = 2\noutput = out.$(Node)\n",
    "node_vanilla": "output = out.$(Node)\n",
    "node_overridden": "universe = parallel\nmachine_count = 2\nNode = mine\noutput = out.$(Node)\n",
    "container_missing_image": "universe = container\n",
    "container_is_common": "container_image = /images/py.sif\ncontainer_is_common = true\n",
    "container_mount_under_scratch": "container_image = docker://a\nmount_under_scratch = /tmp,/var/tmp\n",
    "docker_pull_policy": "universe = docker\ndocker_image = a\ndocker_pull_policy = always\n",
    "docker_send_credentials": "universe = docker\ndocker_image = a\ndocker_send_credentials = true\n",
    "docker_network_none": "universe = docker\ndocker_image = a\ndocker_network_type = none\n",
    "container_singularity_attr": '+SingularityImage = "/cvmfs/singularity.opensciencegrid.org/opensciencegrid/osgvo-el8:latest"\n',
    "container_services_two": "container_image = docker://nginx\ncontainer_service_names = web, db\nweb_container_port = 80\ndb_container_port = 5432\n",
    "vm_kvm": "universe = vm\nexecutable = myvm\nvm_type = KVM\nvm_memory = 1024\nvm_disk = a.img:vda:w\n",
    "vm_kvm_network": "universe = vm\nexecutable = myvm\nvm_type = kvm\nvm_memory = 2G\nvm_disk = a.img:vda:w:raw,b.iso:hdc:r\nvm_networking = true\nvm_networking_type = nat\nvm_vcpus = 4\nvm_macaddr = 00:16:3e:00:00:01\nvm_vnc = true\n",
    "vm_checkpoint_network": "universe = vm\nexecutable = v\nvm_type = kvm\nvm_memory = 64\nvm_disk = a:b:w\nvm_checkpoint = true\nvm_networking = true\nwhen_to_transfer_output = ON_EXIT_OR_EVICT\n",
    "vm_checkpoint_network_refused": "universe = vm\nexecutable = v\nvm_type = kvm\nvm_memory = 64\nvm_disk = a:b:w\nvm_checkpoint = true\nvm_networking = true\n",
    "vm_checkpoint": "universe = vm\nexecutable = v\nvm_type = kvm\nvm_memory = 64\nvm_disk = a:b:w\nvm_checkpoint = true\nshould_transfer_files = NO\n",
    "vm_output_refused": "universe = vm\nexecutable = v\nvm_type = kvm\nvm_memory = 64\nvm_disk = a:b:w\noutput = out.txt\n",
    "vm_xen_included": "universe = vm\nexecutable = xvm\nvm_type = xen\nvm_memory = 512\nxen_kernel = included\nvm_disk = x.img:sda1:w\n",
    "vm_xen_vmx": "universe = vm\nexecutable = xvm\nvm_type = xen\nvm_memory = 512\nxen_kernel = vmx\nvm_disk = x.img:sda1:w\n",
    "vm_xen_file": "universe = vm\nexecutable = xvm\nvm_type = xen\nvm_memory = 512\nxen_kernel = vmlinuz\nxen_initrd = initrd.img\nxen_root = /dev/sda1\nxen_kernel_params = 'quiet'\nvm_disk = x.img:sda1:w\n",
    "vm_no_memory": "universe = vm\nexecutable = v\nvm_type = kvm\nvm_disk = a:b:w\n",
    "vm_no_disk": "universe = vm\nexecutable = v\nvm_type = kvm\nvm_memory = 10\n",
    "vm_bad_disk": "universe = vm\nexecutable = v\nvm_type = kvm\nvm_memory = 10\nvm_disk = a:b\n",
    "vm_vmware": "universe = vm\nexecutable = v\nvm_type = vmware\nvm_memory = 10\n",
    "universe_mpi": "universe = mpi\n",
    "universe_pvm": "universe = pvm\n",
    "universe_pipe": "universe = pipe\n",
    "universe_number_7": "universe = 7\n",
}

# name -> (the lines under test, condor_submit's arguments): written as FILE.sub.args.
COMMAND_LINES: dict[str, tuple[str, list[str]]] = {
    "cmdline_assign": ("arguments = $(x)\n", ["x=from the command line"]),
    "cmdline_assign_file_wins": ("x = file\narguments = $(x)\n", ["x=command line"]),
    "cmdline_plus_attr": ("", ['+Foo="bar"']),
    "cmdline_append_each_queue": (
        "arguments = first\nqueue\narguments = second\nqueue 2\n",
        ["-append", "request_cpus = 2", "-a", "arguments = appended $(Process)"],
    ),
    "cmdline_batch_name": ("batch_name = from file\n", ["-batch-name", "cli batch"]),
    "cmdline_queue": ("arguments = $(Process)\n", ["-queue", "3"]),
    "cmdline_queue_in": ("arguments = $(Item)\n", ["-queue", "in (a, b)"]),
}


# DAG node jobs: a node's submit description with the statements condor_dagman adds
# around it (condorx.dagman.node_job), as condor_submit's NAME=VALUE and -append
# arguments; tests/dag/test_node_job.py checks these stay what condor_dagman says.
DAG_NODE_TEXT = (
    "log = job.log\noutput = $(JOB).out\n"
    "arguments = $(JOB) $(RETRY) $(x:none) $(DAG_STATUS) $(FAILED_COUNT)\n"
)
DAG_NODE_DAG = """\
JOB A1 node.sub
JOB A2 node.sub
JOB B node.sub
SERVICE S node.sub
PARENT A1 A2 CHILD B
VARS B x="1" +Tag="\\"tagged\\""
VARS B APPEND log="b.log" My.Where="$(JOB)"
VARS B PREPEND output="first.out"
PRIORITY B 5
SET_JOB_ATTR Project = "dags"
"""


def dag_node_args(name: str, retry: int, status: int, failed: int) -> list[str]:
    """condor_submit's arguments that stand for condor_dagman's statements for `name`."""
    import tempfile

    from condorx.dagman.node_job import Context, statements
    from condorx.language.dag.parse import parse

    with tempfile.TemporaryDirectory() as d:
        dag_file = Path(d) / "x.dag"
        dag_file.write_text(DAG_NODE_DAG)
        dag = parse(dag_file)
    ctx = Context(42, "/dags/x.dag.nodes.log", "x.dag+42", "42.0", suppress_notification=True)
    top, after = statements(dag, dag.nodes[name], ctx, retry, status, failed)
    return [w.replace(" = ", "=", 1) for w in top] + [a for line in after for a in ("-a", line)]


DAG_NODES = {
    "dagnode_no_parents": ("A1", 0, 0, 0),
    "dagnode_parents_vars_retry": ("B", 2, 2, 1),
    "dagnode_service": ("S", 0, 0, 0),
}


def main() -> None:
    here = Path(__file__).resolve().parent.parent / "corpus" / "generated"
    here.mkdir(parents=True, exist_ok=True)
    for old in [*here.glob("*.sub"), *here.glob("*.sub.args")]:
        old.unlink()
    for name, lines in {**CASES, **QUEUES, **SPELLINGS}.items():
        if lines is None:
            text = "arguments = x\nqueue\n"
        else:
            text = BASE + lines
            if not re.search(r"(?im)^\s*queue\b", lines) and name != "queue_none":
                text += "queue\n"
        (here / f"{name}.sub").write_text(text)
    for name, (lines, args) in COMMAND_LINES.items():
        (here / f"{name}.sub").write_text(BASE + lines)
        (here / f"{name}.sub.args").write_text("".join(a + "\n" for a in args))
    for name, (node, retry, status, failed) in DAG_NODES.items():
        (here / f"{name}.sub").write_text(BASE + DAG_NODE_TEXT)
        args = dag_node_args(node, retry, status, failed)
        (here / f"{name}.sub.args").write_text("".join(a + "\n" for a in args))
    rows = here / "rows.sh"
    rows.write_text("#!/bin/sh\nprintf 'a 1\\nb 2\\n\\nc 3\\n'\n")
    rows.chmod(0o755)
    (here / "items.txt").write_text("1 one\n2 two\n# a comment\n3 three\n")
    for f in ("a.dat", "b.dat"):
        (here / f).write_text("data\n")
    for d in ("run1", "run2", "sub/dir", "elsewhere"):
        (here / d).mkdir(parents=True, exist_ok=True)
        (here / d / ".keep").write_text("")
    count = len(CASES) + len(QUEUES) + len(SPELLINGS) + len(COMMAND_LINES) + len(DAG_NODES)
    print(f"{count} files in {here}")


if __name__ == "__main__":
    main()
