"""HTCondor-style command lines: single-dash long options that may be abbreviated
(`-const` for `-constraint`), and options such as `-af` that take every word after them.

click reads the command line as a list of words (`ignore_unknown_options`); this module
gives those words HTCondor's meaning, which click's own option grammar cannot express.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import click


@dataclass(frozen=True)
class Opt:
    name: str  # the full name, without the dash
    min_prefix: int  # how short an abbreviation may be
    takes: int = 0  # 0: a flag; 1: one value; -1: every following word not an option
    aliases: tuple[str, ...] = ()


@dataclass
class Parsed:
    flags: set[str] = field(default_factory=set)
    values: dict[str, list[str]] = field(default_factory=dict)
    positional: list[str] = field(default_factory=list)

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
        opt = _find(word.lstrip("-").lower(), options, tool)
        if opt.takes == 0:
            out.flags.add(opt.name)
        elif opt.takes == 1:
            if i >= len(words):
                raise click.UsageError(f"{tool}: -{opt.name} needs a value")
            out.values.setdefault(opt.name, []).append(words[i])
            i += 1
        else:
            taken = out.values.setdefault(opt.name, [])
            while i < len(words) and not (words[i].startswith("-") and len(words[i]) > 1):
                taken.append(words[i])
                i += 1
    return out


def _find(name: str, options: Sequence[Opt], tool: str) -> Opt:
    for opt in options:
        if name in opt.aliases:
            return opt
        if len(name) >= opt.min_prefix and opt.name.startswith(name):
            return opt
    raise click.UsageError(f"{tool}: unknown option -{name}")


CONTEXT = {
    "ignore_unknown_options": True,
    "allow_extra_args": True,
    "help_option_names": ["--help", "-help"],
}


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
