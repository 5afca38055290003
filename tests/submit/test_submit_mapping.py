"""Submit commands become the job attributes HTCondor gives them (built without a schedd)."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorx.language.argsyntax import split_v2
from condorx.language.config import Config
from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse
from condorx.transport.wire import Expr

CFG = Config.from_text("ARCH = X86_64\nOPSYS = LINUX\nFILESYSTEM_DOMAIN = example.org\n")


def jobs(text: str, cwd: Path, cluster: int = 7) -> list[dict]:
    """Each proc's full attribute map (cluster map overlaid with the proc's own)."""
    built = build(parse(text, "job.sub"), cluster, Facts.from_config(CFG, str(cwd)), CFG)
    return [{**built.cluster, **diff} for diff in built.procs]


def expr(job: dict, name: str) -> str:
    v = job[name]
    assert isinstance(v, Expr), f"{name} is {v!r}"
    return v.text


def test_the_basic_commands(tmp_path):
    (tmp_path / "work").mkdir()  # initialdir must exist, as HTCondor checks
    (job,) = jobs(
        """
        executable = run.sh
        arguments = -n 5 input.dat
        input = in.txt
        output = out/$(Cluster).$(Process).out
        error = /tmp/err
        log = job.log
        initialdir = work
        priority = 4
        queue
        """,
        tmp_path,
    )
    work = str(tmp_path / "work")
    # As HTCondor: the executable against the submit directory, the standard files as
    # written (the schedd reads them against Iwd), the log made absolute against Iwd.
    assert job["Cmd"] == f"{tmp_path}/run.sh" and job["Iwd"] == work
    assert job["Args"] == "-n 5 input.dat"
    assert job["In"] == "in.txt" and job["Out"] == "out/7.0.out"
    assert job["Err"] == "/tmp/err" and job["UserLog"] == f"{work}/job.log"
    assert job["JobUniverse"] == 5 and job["JobPrio"] == 4 and job["JobStatus"] == 1
    # The default policy expressions only under SUBMIT_INSERT_DEFAULT_POLICY_EXPRS.
    assert "OnExitRemove" not in job and "PeriodicHold" not in job


def test_default_policy_expressions_only_when_the_configuration_asks(tmp_path):
    text = "executable = /bin/true\non_exit_hold = ExitCode == 3\nqueue\n"
    cfg = Config.from_text("SUBMIT_INSERT_DEFAULT_POLICY_EXPRS = true\n")
    built = build(parse(text, "job.sub"), 1, Facts.from_config(cfg, str(tmp_path)), cfg)
    job = {**built.cluster, **built.procs[0]}
    assert (job["OnExitRemove"], job["PeriodicHold"], job["PeriodicVacate"]) == (True, False, False)
    assert expr(job, "OnExitHold") == "ExitCode == 3"  # what the file says stays
    (plain,) = jobs(text, tmp_path)
    assert "OnExitRemove" not in plain and "PeriodicRemove" not in plain


def test_requests_take_units(tmp_path):
    (job,) = jobs(
        "executable = /bin/true\nrequest_cpus = 4\nrequest_memory = 2 GB\n"
        "request_disk = 3G\nqueue\n",
        tmp_path,
    )
    assert (job["RequestCpus"], job["RequestMemory"], job["RequestDisk"]) == (4, 2048, 3145728)
    (plain,) = jobs(
        "executable = /bin/true\nrequest_memory = 512\nrequest_disk = 1000\nqueue\n", tmp_path
    )
    assert (plain["RequestMemory"], plain["RequestDisk"]) == (512, 1000)
    (unset,) = jobs("executable = /bin/true\nqueue\n", tmp_path)
    assert (
        "MemoryUsage" in expr(unset, "RequestMemory") and expr(unset, "RequestDisk") == "DiskUsage"
    )


def test_arguments_and_environment_in_both_syntaxes(tmp_path):
    (old,) = jobs(
        "executable = /bin/echo\narguments = a b c\nenvironment = A=1;B=2\nqueue\n", tmp_path
    )
    # HTCondor keeps the environment in the new syntax, whichever was written.
    assert old["Args"] == "a b c" and old["Environment"] == "A=1 B=2" and "Env" not in old
    (new,) = jobs(
        'executable = /bin/echo\narguments = "one \'two three\' ""quoted"""\n'
        "environment = \"A=1 B='x y'\"\nqueue\n",
        tmp_path,
    )
    # Canonical new syntax: each blank inside a word quoted on its own.
    assert new["Arguments"] == "one two' 'three \"quoted\"" and "Args" not in new
    assert new["Environment"] == "A=1 B=x' 'y"
    (env,) = jobs("executable = /bin/echo\nenv = A=1;B=2\nqueue\n", tmp_path)
    assert (env["Env"], env["EnvDelim"]) == ("A=1;B=2", ";")  # only `env` keeps the old form


def test_runs_of_blanks_and_quotes_are_one_quoted_section(tmp_path):
    # As dask-jobqueue's quote_environment writes a value with blanks and quotes. The
    # answers are HTCondor 24's (htcondor.Submit(text).jobs()). Quoting each blank and each
    # quote on its own would write blank-quote as `' '''''`: read back, a blank, two quotes.
    (job,) = jobs(
        "executable = /bin/true\n"
        "arguments = \"'a  b' 'it''s' '' 'x '''' y' '''' z\"\n"
        "environment = \"E='a  b' F=''' ' G= H='x '''' y' GREETING='hello ''dask'' world'\"\n"
        "queue\n",
        tmp_path,
    )
    assert job["Arguments"] == "a'  'b it''''s '' x' '''' 'y '''' z"
    assert (
        job["Environment"] == "E=a'  'b F=''' ' G= GREETING=hello' '''dask''' 'world H=x' '''' 'y"
    )
    assert split_v2(job["Environment"]) == [
        "E=a  b",
        "F=' ",
        "G=",
        "GREETING=hello 'dask' world",
        "H=x '' y",
    ]


def test_requirements_get_the_default_clauses_unless_the_user_names_them(tmp_path):
    (job,) = jobs("executable = /bin/true\nrequirements = Memory > 1024\nqueue\n", tmp_path)
    # HTCondor adds the Memory clause even where the user speaks of Memory.
    assert expr(job, "Requirements") == (
        '(Memory > 1024) && (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && '
        "(TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && "
        "((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))"
    )
    (arch,) = jobs('executable = /bin/true\nrequirements = Arch == "ARM"\nqueue\n', tmp_path)
    assert "X86_64" not in expr(arch, "Requirements")
    (yes,) = jobs("executable = /bin/true\nshould_transfer_files = YES\nqueue\n", tmp_path)
    assert expr(yes, "Requirements").endswith(
        "(TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)"
    )
    assert yes["ShouldTransferFiles"] == "YES" and yes["WhenToTransferOutput"] == "ON_EXIT"


def test_custom_attributes_policy_and_hold(tmp_path):
    (job,) = jobs(
        """
        executable = /bin/true
        +Project = "atlas"
        MY.Weight = 2 * 3
        on_exit_remove = ExitCode == 0
        periodic_remove = (time() - QDate) > 3600
        periodic_hold_subcode = 9
        hold = true
        notification = Error
        queue
        """,
        tmp_path,
    )
    assert job["Project"] == "atlas" and job["Weight"] == Expr("2 * 3")
    assert expr(job, "OnExitRemove") == "ExitCode == 0"
    assert expr(job, "PeriodicRemove") == "(time() - QDate) > 3600"
    assert job["PeriodicHoldSubCode"] == 9
    assert job["JobStatus"] == 5 and job["JobNotification"] == 3


def test_deferral_and_cron_commands(tmp_path):
    (job,) = jobs(
        "executable = /bin/true\ndeferral_time = CurrentTime + 60\ndeferral_window = 30\n"
        "deferral_prep_time = 20\ncron_minute = */5\ncron_hour = 1-3\nqueue\n",
        tmp_path,
    )
    assert expr(job, "DeferralTime") == "CurrentTime + 60"
    assert (job["DeferralWindow"], job["DeferralPrepTime"]) == (30, 20)
    assert [
        job[a] for a in ("CronMinute", "CronHour", "CronDayOfMonth", "CronMonth", "CronDayOfWeek")
    ] == ["*/5", "1-3", "*", "*", "*"]
    # The schedd appends the prep-time clause (tests/schedd/test_deferral_schedd.py).
    assert "DeferralPrepTime" not in expr(job, "Requirements")


def test_universes(tmp_path):
    for name, number in (("vanilla", 5), ("scheduler", 7), ("local", 12)):
        (job,) = jobs(f"universe = {name}\nexecutable = /bin/true\nqueue\n", tmp_path)
        assert job["JobUniverse"] == number
    (grid,) = jobs(
        "universe = grid\ngrid_resource = condor sched cm\nexecutable = /bin/true\nqueue\n",
        tmp_path,
    )
    assert grid["JobUniverse"] == 9 and grid["GridResource"] == "condor sched cm"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("executble = /bin/true\nqueue\n", "job.sub, line 2: No 'executable' parameter"),
        (
            "executable = /bin/true\nuniverse = cloud\nqueue\n",
            "line 2: I don't know about the 'cloud' universe",
        ),
        (
            "executable = /bin/true\nrequirements = Memory >\nqueue\n",
            "line 2: requirements is not a valid expression",
        ),
        ("arguments = x\nqueue\n", "No 'executable' parameter was provided"),
        (
            "executable = /bin/true\nshould_transfer_files = maybe\nqueue\n",
            "line 2: invalid value (maybe",
        ),
        ("executable = /bin/true\nqueue many\n", "line 2: queue count must be a number"),
        ("executable = /bin/true\nthis is not a command\nqueue\n", "line 2: not a submit command"),
        (
            "universe = scheduler\nexecutable = /bin/true\ncron_minute = 5\nqueue\n",
            "line 3: cron_minute: job deferral and cron",
        ),
        (  # any of the commands, named where it is written
            "universe = scheduler\nexecutable = /bin/true\n\ncron_window = 60\nqueue\n",
            "line 4: cron_window: job deferral and cron",
        ),
        (
            "universe = scheduler\ncron_hour = 3\nexecutable = /bin/true\nqueue\n",
            "line 2: cron_hour: job deferral and cron",
        ),
        (
            "executable = /bin/true\nx509userproxy = /nonexistent/proxy\nqueue\n",
            "line 2: unable to read proxy file",
        ),
        ("executable = /bin/true\n+Bad = 1 +\nqueue\n", "line 2: +Bad is not a valid expression"),
        ("executable = /bin/true\nhold = perhaps\nqueue\n", "line 2: hold must be true or false"),
    ],
)
def test_bad_descriptions_name_the_line(tmp_path, text, message):
    with pytest.raises(SubmitError, match=message.replace("(", r"\(").replace("+", r"\+")):
        jobs(text, tmp_path)


def test_a_name_that_is_no_command_is_a_macro_and_unused_ones_are_warned_of(tmp_path):
    built = build(
        parse("executable = /bin/true\nbetastar = 0.5\nexecutble = x\nqueue\n", "job.sub"),
        1,
        Facts.from_config(CFG, str(tmp_path)),
        CFG,
    )
    assert built.warnings == [
        "WARNING: the line 'betastar = 0.5' was unused by condor_submit. Is it a typo?",
        "WARNING: the line 'executble = x' was unused by condor_submit. Is it a typo?",
    ]


def test_a_macro_used_by_a_value_is_not_an_unknown_command(tmp_path):
    (job,) = jobs(
        "name = sim\nexecutable = /bin/true\narguments = $(name)-$(Process)\nqueue\n", tmp_path
    )
    assert job["Args"] == "sim-0"
