"""`--help` and `-help` on every console script: exit with the status HTCondor's own tool
gives (HTCONDOR_HELP), print where it prints, contact no daemon, and list every option the
tool's parser accepts, each with a line saying what it does.

The tools that read HTCondor's single-dash words are `args.Tool`s: their parser reads the very
table (`cmd.options`) this test takes the option names from, so an option cannot be added to
a tool without appearing here. The others are plain click commands, whose options click
itself lists; the test checks each is there with a description.
"""

from __future__ import annotations

import contextlib
import importlib
import re
import socket
import sys
import tomllib
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from condorx.cli import args as a

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


def _entry(script: str) -> Any:
    module, _, attr = SCRIPTS[script].partition(":")
    return getattr(importlib.import_module(module), attr)


@pytest.fixture(autouse=True)
def no_daemons(monkeypatch):
    """Any socket a tool opens to reach (or be) a daemon fails the test."""

    def refuse(self, *args, **kwargs):
        raise AssertionError(f"--help used a socket: {args}")

    for method in ("connect", "connect_ex", "bind"):
        monkeypatch.setattr(socket.socket, method, refuse)


def _listed(text: str) -> dict[str, str]:
    """Each option the help lists (`-name`, `-name|-alias`, click's `-x, --x` and
    `--x / --no-x`, at a line's start) with the text that describes it."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s+(-[^\s,|]+(?:(?:\||, | / )-[^\s,|]+)*)(?:\s+([^\s].*))?$", line)
        if m:
            for name in re.split(r"\||, | / ", m.group(1)):
                out[name] = m.group(2) or ""
    return out


def undescribed(cmd: a.Tool, text: str) -> list[str]:
    """The options `cmd` accepts that its help `text` does not list with a description."""
    listed = _listed(text)
    missing = []
    for opt in cmd.options:
        for name in (opt.name, *opt.aliases):
            line = listed.get(f"-{name}")
            if line is None or not opt.help or opt.help not in line:
                missing.append(f"-{name}")
    return missing


# What HTCondor's own tool does on -help and --help: (status after -help, after --help,
# the stream the usage goes to), where that is not (0, 0, stdout). Read from HTCondor's
# sources (src/condor_tools, condor_q.V6, condor_status.V6, condor_who, condor_dagman,
# condor_job_router), at the file and line each comment names.
HTCONDOR_HELP = {
    "condor_config_val": (1, 1, "stderr"),  # config_val.cpp:859, usage() -> exit(1)
    "condor_continue": (0, 0, "stderr"),  # rm.cpp:385, usage(0) on stderr
    "condor_hold": (0, 0, "stderr"),
    "condor_release": (0, 0, "stderr"),
    "condor_rm": (0, 0, "stderr"),
    "condor_suspend": (0, 0, "stderr"),
    "condor_off": (0, 0, "stderr"),  # tool.cpp:424, usage(MyName, 0) on stderr
    "condor_on": (0, 0, "stderr"),
    "condor_reconfig": (0, 0, "stderr"),
    "condor_restart": (0, 0, "stderr"),
    "condor_reschedule": (0, 0, "stderr"),
    "condor_vacate": (0, 0, "stderr"),
    "condor_dagman": (1, 1, "stdout"),  # dagman_main.cpp:740, Usage() -> EXIT_ERROR
    "condor_drain": (1, 1, "stderr"),  # drain.cpp:198, usage() -> exit(1)
    "condor_now": (1, 1, "stderr"),  # now.cpp:22, argc < 3 -> usage() returns 1
    "condor_prio": (1, 1, "stderr"),  # prio.cpp: no -help; ends in usage() -> exit(1)
    "condor_router_history": (1, 0, "stderr"),  # getopt fails on -help's -e; -h/--help 0
    "condor_status": (0, 0, "stderr"),  # status.cpp:2847, usage on stderr, exit(0)
    "condor_tail": (0, 1, "stderr"),  # tail.cpp:144, strcmp "-help" only
    "condor_token_create": (1, 1, "stderr"),  # token_create.cpp:48, print_usage -> exit(1)
    "condor_transfer_data": (0, 1, "stderr"),  # transfer_data.cpp:269, case 'h'
    "condor_userlog": (0, 1, "stderr"),  # userlog.cpp:143, case 'h'
    "condor_userprio": (1, 1, "stderr"),  # user_prio.cpp: no -help; usage() -> exit(1)
    "condor_version": (0, 1, "stderr"),  # version.cpp:72, case 'h'
    "condor_wait": (0, 1, "stderr"),  # wait.cpp:136, strcmp "-help" only
    "condor_watch_q": (0, 2, "stdout"),  # argparse add_help=False, "-help" action=help
    "condor_who": (1, 1, "stderr"),  # who.cpp:1714, usage(true) -> exit(1)
    "condor_schedd": (1, 1, "stderr"),  # schedd_main.cpp:61, usage() -> exit(1)
}


def _help(root: click.Command, words: list[str], flag: str, script: str = "") -> str:
    dash, dashdash, stream = (
        HTCONDOR_HELP.get(script, (0, 0, "stdout")) if not words else (0, 0, "stdout")
    )
    r = CliRunner().invoke(root, [*words, flag], catch_exceptions=False)
    assert r.exit_code == (dash if flag == "-help" else dashdash), (script, words, flag, r.output)
    text = r.stderr if stream == "stderr" else r.stdout
    assert text.startswith("Usage: "), (script, flag, r.output)
    return text


def _check_click(
    root: click.Command, cmd: click.Command, words: list[str], script: str = ""
) -> int:
    """`cmd` (`root` given `words`) and every subcommand under it: its help lists what it
    accepts. How many helps were checked."""
    checked = 0
    tool = a.tool_of(cmd)
    for flag in ("--help", "-help"):
        text = _help(root, words, flag, script)
        if tool is not None:
            assert tool.options, tool.name
            assert not undescribed(tool, text), (tool.name, undescribed(tool, text))
            assert "-help" in _listed(text) and "--help" in _listed(text)
        else:
            # A plain click command parses its own options: none may slip past unlisted.
            assert not cmd.context_settings.get("ignore_unknown_options"), (
                f"{cmd.name} reads HTCondor-style words: make it an args.Tool"
            )
            listed = _listed(text)
            for param in cmd.params:
                if isinstance(param, click.Option) and not param.hidden:
                    for name in param.opts + param.secondary_opts:
                        assert name in listed, (cmd.name, name)
                    assert param.help, (cmd.name, param.opts)
        checked += 1
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            assert name in text, (words, name)
            checked += _check_click(root, sub, [*words, name])
    return checked


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_console_scripts_help_lists_its_options(script, monkeypatch, capsys):
    cmd = _entry(script)
    if isinstance(cmd, click.Command | a.Tool):
        assert _check_click(cmd, cmd, [], script) >= 2
        return
    # A daemon's main(): reads sys.argv, and must answer --help instead of starting.
    dash, _, stream = HTCONDOR_HELP.get(script, (0, 0, "stdout"))
    for flag in ("--help", "-help"):
        monkeypatch.setattr(sys, "argv", [script, flag])
        with pytest.raises(SystemExit) if dash else contextlib.nullcontext() as e:
            cmd()
        assert dash == 0 or e.value.code == dash  # type: ignore[union-attr]
        out = getattr(capsys.readouterr(), "err" if stream == "stderr" else "out")
        assert out.startswith(f"Usage: {script}"), out


def test_the_htcondor_style_tools_are_all_tools():
    """The tools of HTCondor's own command lines describe their options from the table their
    parser reads (the daemons and `condorx` aside)."""
    plain = {"condorx", "condor_config_val"}
    tools = 0
    for script in SCRIPTS:
        cmd = _entry(script)
        if script not in plain:
            assert not isinstance(cmd, click.Command), f"{script}: make it an args.Tool"
        tools += isinstance(cmd, a.Tool)
    assert tools >= 25


def test_an_option_missing_from_the_help_is_caught():
    opts = [a.Opt("fast", 2, help="kill at once"), a.Opt("name", 2, 1, ("n",), help="the schedd")]

    @a.command("condor_x", opts, "condor_x [-fast] [-name N]", epilog="no options here")
    def broken(ctx: a.Context) -> None:
        a.parsed(ctx)

    text = CliRunner().invoke(broken, ["--help"]).output
    assert undescribed(broken, text) == ["-fast", "-name", "-n"]
    described = a.Tool("condor_x", options=[*opts, a.Opt("quiet", 1)])
    text = CliRunner().invoke(described, ["--help"]).output
    assert undescribed(described, text) == ["-quiet"]  # listed, but not said what it does


def test_submit_help_says_its_arguments_too():
    text = CliRunner().invoke(_entry("condor_submit"), ["-help"]).output
    for word in ("NAME=VALUE", "FILE", "-append", "-queue", "-dry-run", "-batch-name"):
        assert word in text


def test_a_tool_reads_the_options_it_lists():
    """The parser and the help share one table: an abbreviation of every listed option is
    read as that option, and a word not in it is refused."""
    for script in SCRIPTS:
        cmd = _entry(script)
        if not isinstance(cmd, a.Tool):
            continue
        for opt in cmd.options:
            word = "-" + opt.name[: max(opt.min_prefix, 1)]
            got = a.parse([word] + ["x"] * max(opt.takes, 0), cmd.options, script)
            assert opt.name in got.flags | set(got.values), (script, word)
        with pytest.raises(a.UsageError):
            a.parse(["-no-such-option"], cmd.options, script)


def test_a_tool_named_apart_from_its_program_names_the_program(capsys):
    # `condorx continue` is condor_continue: its messages name the program.
    from condorx.cli import act

    assert (act.resume.name, act.resume.tool) == ("continue", "condor_continue")
    with pytest.raises(SystemExit) as e:
        act.resume.main(["-no-such-option"])
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert "Usage: condor_continue [OPTIONS]" in err
    assert "Error: condor_continue: unknown option -no-such-option" in err
