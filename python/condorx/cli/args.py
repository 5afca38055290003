"""HTCondor-style command lines: single-dash long options that may be abbreviated
(`-const` for `-constraint`), and options such as `-af` that take every word after them.

A tool takes its command line as a list of words and gives them HTCondor's meaning,
which click's option grammar cannot express; it needs no click at all (see `Tool`).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Sequence

from condorx.cli import running
from condorx.record import field, record

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class Opt:
    name: str  # the full name, without the dash
    min_prefix: int  # how short an abbreviation may be
    takes: int = 0  # 0: a flag; 1: one value; -1: every following word not an option
    aliases: tuple[str, ...] = ()
    help: str = ""  # what --help says of it
    metavar: str = ""  # how --help names its value(s)


@record
class Parsed:
    flags: set[str] = field(default_factory=set)
    values: dict[str, list[str]] = field(default_factory=dict)
    positional: list[str] = field(default_factory=list)
    # What followed a colon on an option (`-af:jr` gives {"autoformat": "jr"}), as typed.
    quals: dict[str, str] = field(default_factory=dict)
    # Every option with its values, in command-line order (for -format FMT ATTR pairs).
    order: list[tuple[str, list[str]]] = field(default_factory=list)

    def value(self, name: str) -> str | None:
        v = self.values.get(name)
        return v[-1] if v else None


def parse(words: Sequence[str], options: Sequence[Opt], tool: str) -> Parsed:
    out = Parsed()
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.startswith("-") or word == "-":
            out.positional.append(word)
            continue
        name, colon, quals = word.lstrip("-").partition(":")
        opt = _find(name.lower(), options, tool)
        if colon:
            out.quals[opt.name] = out.quals.get(opt.name, "") + quals
        if opt.takes == 0:
            out.flags.add(opt.name)
            out.order.append((opt.name, []))
        elif opt.takes == 1:
            if i >= len(words):
                raise UsageError(f"{tool}: -{opt.name} needs a value")
            out.values.setdefault(opt.name, []).append(words[i])
            out.order.append((opt.name, [words[i]]))
            i += 1
        elif opt.takes >= 2:  # a fixed number of values, dashes and all (-format FMT ATTR)
            if i + opt.takes > len(words):
                raise UsageError(f"{tool}: -{opt.name} needs {opt.takes} values")
            got = list(words[i : i + opt.takes])
            out.values.setdefault(opt.name, []).extend(got)
            out.order.append((opt.name, got))
            i += opt.takes
        else:
            taken = out.values.setdefault(opt.name, [])
            start = len(taken)
            while i < len(words) and not (words[i].startswith("-") and len(words[i]) > 1):
                taken.append(words[i])
                i += 1
            out.order.append((opt.name, taken[start:]))
    return out


def describe(
    options: Sequence[Opt], usage: str = "", arguments: Sequence[tuple[str, str]] = ()
) -> str:
    """The options, one a line, for a command's --help (click keeps `\b` blocks as set;
    a Tool's own help drops the marks),
    then the words that are not options (`arguments`: (how --help names it, what it is))."""
    lines = ["\b"]
    if usage:
        lines += [f"Usage: {usage}", "", "\b"]  # each paragraph keeps its lines
    lines.append("Options (a unique prefix of each will do):")
    for opt in options:
        names = "|".join([f"-{opt.name}", *(f"-{a}" for a in opt.aliases)])
        arg = opt.metavar or {0: "", 1: "VALUE", -1: "WORD..."}.get(opt.takes, "VALUE...")
        left = f"  {names} {arg}".rstrip()
        lines.append(f"{left:<34} {opt.help}".rstrip())
    lines.append(f"{'  --help|-help':<34} show this message and exit")
    if arguments:
        lines += ["", "\b", "Arguments:"]
        lines += [f"{'  ' + name:<34} {text}" for name, text in arguments]
    return "\n".join(lines)


def _find(name: str, options: Sequence[Opt], tool: str) -> Opt:
    for opt in options:
        if name in opt.aliases:
            return opt
        if len(name) >= opt.min_prefix and opt.name.lower().startswith(name):
            return opt
    raise UsageError(f"{tool}: unknown option -{name}")


class UsageError(Exception):
    """A command line the tool cannot read."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@record
class Context:
    """What a tool's function is given: the words after the tool's name, and the tool."""

    args: list[str]
    command: Tool


HELP_WORDS = ("--help", "-help")


class Tool:
    """An HTCondor-style command: it hands its function the words, which `parsed(ctx)`
    reads with `options`, the very table its --help lists (so no option goes
    undescribed).

    Not a click command: these tools start on every call of a user's script, and click
    with what it imports was about a fifth of their start-up. `as_click()` makes
    the same tool a click command for the `condorx` command's groups. `main()` takes
    click's arguments, so click's test runner drives a Tool as it drives a command."""

    def __init__(
        self,
        name: str,
        fn: Callable[[Context], Any] | None = None,
        options: Sequence[Opt] = (),
        usage: str = "",
        arguments: Sequence[tuple[str, str]] = (),
        help: str | None = None,
        usage_exit: int = 1,
        epilog: str | None = None,
        tool: str = "",
        help_exit: int | tuple[int, int] = 0,
        help_to_stderr: bool = False,
    ) -> None:
        """`name`: the command's (`condorx continue`); `tool`: the program's, which its
        messages name (condor_continue), `name` unless given. `help_exit`: the status
        after -help (or, as a pair, after -help and after --help), and `help_to_stderr`
        where the help goes, as the HTCondor tool's own (many exit 1, or print to
        stderr; some refuse --help)."""
        self.name = name
        self.fn = fn
        self.options = tuple(options)
        self.tool = tool or name
        self.help = help if help is not None else (fn.__doc__ or "" if fn else "")
        self.epilog = epilog if epilog is not None else describe(options, usage, arguments)
        # HTCondor's tools exit 1 on a command line they cannot read (condor_drain's is 2).
        self.usage_exit = usage_exit
        pair = help_exit if isinstance(help_exit, tuple) else (help_exit, help_exit)
        self.help_exit = dict(zip(HELP_WORDS[::-1], pair, strict=True))  # -help, --help
        self.help_to_stderr = help_to_stderr

    def __call__(self) -> None:
        """The console script: run with the process's words, then exit."""
        running()
        try:
            self.main(sys.argv[1:])
        finally:
            # The process ends here: Python's finalization would collect every object
            # the imports made, a tenth of a small query's CPU, to free them at exit.
            gc.freeze()

    def main(
        self, args: Sequence[str] | None = None, prog_name: str | None = None, **_: Any
    ) -> None:
        """Run the tool on `args` and exit with its status, as a click command's main."""
        words = list(sys.argv[1:] if args is None else args)
        if "--" in words:  # the end of options, as click reads it (and drops it)
            cut = words.index("--")
            head, words = words[:cut], words[:cut] + words[cut + 1 :]
        else:
            head = words
        asked = next((w for w in head if w in HELP_WORDS), None)
        if asked is not None:
            out = sys.stderr if self.help_to_stderr else sys.stdout
            print(self.help_text(prog_name), end="", file=out)
            sys.exit(self.help_exit[asked])
        try:
            if self.fn is not None:
                self.fn(Context(words, self))
        except UsageError as e:
            print(f"Usage: {prog_name or self.tool} [OPTIONS]", file=sys.stderr)
            print(f"Try '{prog_name or self.tool} --help' for help.\n", file=sys.stderr)
            print(f"Error: {e.message}", file=sys.stderr)
            sys.exit(self.usage_exit)
        except KeyboardInterrupt:
            print("\nAborted!", file=sys.stderr)
            sys.exit(1)
        sys.exit(0)

    def help_text(self, prog_name: str | None = None) -> str:
        """What --help prints: the tool's one-line description, then its options."""
        lines = [f"Usage: {prog_name or self.tool} [OPTIONS]", ""]
        if self.help:
            lines += ["  " + line if line else "" for line in self.help.strip().splitlines()]
            lines.append("")
        lines += [line for line in self.epilog.splitlines() if line != "\b"]
        return "\n".join(lines) + "\n"

    def as_click(self) -> Any:
        """The same tool as a click command (for a click group)."""
        import click  # only the `condorx` command's groups need it

        tool = self

        def run(ctx: click.Context) -> None:
            try:
                assert tool.fn is not None
                tool.fn(Context(list(ctx.args), tool))
            except UsageError as e:
                raise UsageError(e.message) from None

        command = click.Command(
            self.name,
            callback=click.pass_context(run),
            context_settings={
                "ignore_unknown_options": True,
                "allow_extra_args": True,
                "help_option_names": list(HELP_WORDS),
            },
            help=self.help,
            epilog=self.epilog,
        )
        command.tool = self  # type: ignore[attr-defined]
        return command


def tool_of(cmd: Any) -> Tool | None:
    """The Tool `cmd` is, or is made from (`Tool.as_click`); None for another command."""
    return cmd if isinstance(cmd, Tool) else getattr(cmd, "tool", None)


def command(
    tool: str,
    options: Sequence[Opt],
    usage: str = "",
    arguments: Sequence[tuple[str, str]] = (),
    **kwargs: Any,
) -> Callable[[Callable[[Context], Any]], Tool]:
    """Make the function (which takes a `Context`, and reads its words with
    `parsed(ctx)`) an HTCondor-style tool (see Tool). `usage_exit=` sets the status for a
    command line it cannot read (1 unless given); `name=` and `help=` as click's."""
    name = kwargs.pop("name", tool)

    def make(fn: Callable[[Context], Any]) -> Tool:
        return Tool(name, fn, options, usage, arguments, tool=tool, **kwargs)

    return make


def parsed(ctx: Context, words: Sequence[str] | None = None) -> Parsed:
    """The command's words (or `words`), read with the options its --help lists."""
    cmd = ctx.command
    return parse(ctx.args if words is None else words, cmd.options, cmd.tool)


def job_clauses(words: Sequence[str]) -> list[str]:
    """The constraint each positional word names: `12` a cluster, `12.3` a job, else an
    owner, as condor_q, condor_history and the act tools read them."""
    out = []
    for word in words:
        if word.replace(".", "").isdigit():
            cluster, _, proc = word.partition(".")
            out.append(f"(ClusterId == {cluster}" + (f" && ProcId == {proc})" if proc else ")"))
        else:
            out.append(f'(Owner == "{word}")')
    return out
