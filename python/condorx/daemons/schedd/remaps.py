"""TransferOutputRemaps: where each output file lands, as HTCondor's
`filename_remap_find` reads the rules (`name = target; name2 = target2`).

Tabs and newlines are dropped and each side trimmed; `\\=` and `\\;` are the delimiter
itself. A name is looked up whole; its target is looked up again (rules chain); with no
rule for it, its parent directory is (`results/a.txt` lands under `results`'s target).
A cycle of rules maps nothing, as HTCondor aborts it after MAX_REMAP_RECURSIONS.
"""

from __future__ import annotations

MAX_LEVELS = 128  # HTCondor's MAX_REMAP_RECURSIONS default


def parse(text: object) -> list[tuple[str, str]]:
    """The rules of a TransferOutputRemaps value, in order."""
    if not isinstance(text, str):
        return []
    text = text.replace("\t", "").replace("\n", "")
    rules = []
    at = 0
    while at < len(text):
        start = at
        name, at, ended = _upto(text, at, "=")
        if not ended:
            break
        if ";" in name:  # a field with no '=': skipped, the rest read on
            at = text.index(";", start) + 1
            continue
        target, at, _ = _upto(text, at, ";")
        rules.append((name, target))
    return rules


def _upto(text: str, at: int, delim: str) -> tuple[str, int, bool]:
    """The trimmed text from `at` to the next unescaped `delim`; where to go on, and
    whether `delim` was found."""
    out = []
    while at < len(text):
        ch = text[at]
        if ch == "\\" and at + 1 < len(text) and text[at + 1] == delim:
            out.append(delim)
            at += 2
            continue
        if ch == delim:
            return "".join(out).strip(), at + 1, True
        out.append(ch)
        at += 1
    return "".join(out).strip(), at, False


def find(rules: list[tuple[str, str]], name: str, level: int = 0) -> str | None:
    """Where `name` lands by the rules, or None when no rule applies (or they cycle)."""
    if level > MAX_LEVELS:
        raise _Cycle
    try:
        for source, target in rules:
            if source == name:
                deeper = find(rules, target, level + 1)
                return deeper if deeper is not None else target
        parent, slash, entry = name.rpartition("/")
        if slash and parent:
            moved = find(rules, parent, level + 1)
            if moved is not None:
                return f"{moved}/{entry}"
        return None
    except _Cycle:
        if level:
            raise
        return None


class _Cycle(Exception):
    """Rules that map a name back to itself."""
