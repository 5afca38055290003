"""HTCondor-style command lines: single-dash long options that may be abbreviated
(`-const` for `-constraint`), and options such as `-af` that take every word after them.

click reads the command line as a list of words (`ignore_unknown_options`); this module
gives those words HTCondor's meaning, which click's own option grammar cannot express.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click


@dataclass(frozen=True)
class Opt:
    name: str  # the full name, without the dash
    min_prefix: int  # how short an abbreviation may be
    takes: int = 0  # 0: a flag; 1: one value; -1: every following word not an option
    aliases: tuple[str, ...] = ()
    help: str = ""  # what --help says of it
    metavar: str = ""  # how --help names its value(s)


@dataclass
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
                raise click.UsageError(f"{tool}: -{opt.name} needs a value")
            out.values.setdefault(opt.name, []).append(words[i])
            out.order.append((opt.name, [words[i]]))
            i += 1
        elif opt.takes >= 2:  # a fixed number of values, dashes and all (-format FMT ATTR)
            if i + opt.takes > len(words):
                raise click.UsageError(f"{tool}: -{opt.name} needs {opt.takes} values")
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
    """The options, one a line, for a command's --help (click keeps `\b` blocks as set),
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
    raise click.UsageError(f"{tool}: unknown option -{name}")


CONTEXT = {
    "ignore_unknown_options": True,
    "allow_extra_args": True,
    "help_option_names": ["--help", "-help"],
}


class Tool(click.Command):
    """An HTCondor-style command: click hands it the words, `parsed(ctx)` reads them with
    `options`, the very table its --help lists (so no option goes undescribed)."""

    def __init__(
        self,
        *args: Any,
        options: Sequence[Opt] = (),
        usage: str = "",
        arguments: Sequence[tuple[str, str]] = (),
        tool: str = "",
        usage_exit: int = 1,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("context_settings", CONTEXT)
        kwargs.setdefault("epilog", describe(options, usage, arguments))
        super().__init__(*args, **kwargs)
        self.options = tuple(options)
        self.tool = tool or self.name or ""
        # HTCondor's tools exit 1 on a command line they cannot read (click's own is 2;
        # condor_drain's is 2 as well).
        self.usage_exit = usage_exit

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            e.show()
            ctx.exit(self.usage_exit)


def command(
    tool: str,
    options: Sequence[Opt],
    usage: str = "",
    arguments: Sequence[tuple[str, str]] = (),
    **kwargs: Any,
) -> Callable[[Callable[..., Any]], Tool]:
    """click.command for an HTCondor-style tool (see Tool); the function takes the context
    (`@click.pass_context`) and reads its words with `parsed(ctx)`. `usage_exit=` sets the
    status for a command line it cannot read (1 unless given)."""
    kwargs.setdefault("name", tool)
    return click.command(
        cls=Tool, options=options, usage=usage, arguments=arguments, tool=tool, **kwargs
    )


def parsed(ctx: click.Context, words: Sequence[str] | None = None) -> Parsed:
    """The command's words (or `words`), read with the options its --help lists."""
    cmd = ctx.command
    assert isinstance(cmd, Tool), cmd
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
