"""``$F[modifiers](NAME)``: parts of a file path, as HTCondor's reader cuts them.

Modifiers (case-insensitive) select parts: ``p`` the directory with its trailing slash,
``d`` its last component (``dd`` the last two, ...), ``n`` the file name without its
extension, ``x`` the extension with its dot. The result runs from the leftmost selected
part to the rightmost; with none selected it is the whole path. ``b`` drops the trailing
slash of a directory result or the dot of an extension result, ``u`` turns backslashes
into slashes first, ``w`` slashes into backslashes last, ``q`` double-quotes the result
(``a`` with it: single quotes). ``f`` and ``a`` alone change nothing. Surrounding double
quotes of the value are removed first.
"""

from __future__ import annotations


def _dir_start(path: str, slash: int, levels: int) -> int | None:
    """Where the last `levels` directory components start; None when there are fewer."""
    if slash < 0:
        return None
    comps = path[:slash].split("/")
    if levels > len(comps):
        return None
    keep = len(comps) - levels
    return len("/".join(comps[:keep])) + (1 if keep > 0 else 0)


def path_part(value: str, modifiers: str) -> str:
    mods = modifiers.lower()
    path = value
    if path.startswith('"'):
        path = path[1:]
        if path.endswith('"'):
            path = path[:-1]
    if "u" in mods:
        path = path.replace("\\", "/")
    slash = path.rfind("/")
    dir_end = slash + 1
    dot = path.rfind(".", dir_end)
    ext_start = dot if dot > dir_end else len(path)
    levels, want_p, want_n, want_x = mods.count("d"), "p" in mods, "n" in mods, "x" in mods

    start: int | None = None
    if levels:
        start = _dir_start(path, slash, levels)
        if start is None:  # fewer directories than asked for: that part is empty
            start = dir_end if (want_n or want_x) else len(path)
    elif want_p:
        start = 0
    elif want_n:
        start = dir_end
    elif want_x:
        start = ext_start
    if start is None:
        result = path
    else:
        end = len(path) if want_x else ext_start if want_n else dir_end
        result = path[start:end] if end >= start else ""
        if "b" in mods:
            if (levels or want_p) and not (want_n or want_x):
                result = result.rstrip("/") if result != "/" else result
            elif want_x and not (want_n or levels or want_p):
                result = result[1:] if result.startswith(".") else result
    if "w" in mods:
        result = result.replace("/", "\\")
    if "q" in mods:
        quote = "'" if "a" in mods else '"'
        result = quote + result + quote if result else quote
    return result
