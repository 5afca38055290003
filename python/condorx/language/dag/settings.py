"""The options of the DAG commands that set how the run reports itself: DOT (a picture
of the DAG) and NODE_STATUS_FILE (each node's state, rewritten as the run goes)."""

from __future__ import annotations

from condorx.language.dag.lines import Line, int_of, keyword


def dot(line: Line) -> dict[str, object]:
    """`DOT file [UPDATE | DONT-UPDATE] [OVERWRITE | DONT-OVERWRITE] [INCLUDE file]`."""
    words = line.words[1:]
    if not words:
        raise line.fail("DOT needs a file")
    out: dict[str, object] = {"file": words[0], "update": False, "overwrite": True}
    it = iter(words[1:])
    for word in it:
        key = keyword(word)
        if key in ("UPDATE", "DONT_UPDATE"):
            out["update"] = key == "UPDATE"
        elif key in ("OVERWRITE", "DONT_OVERWRITE"):
            out["overwrite"] = key == "OVERWRITE"
        elif key == "INCLUDE":
            out["include"] = next(it, None)
            if out["include"] is None:
                raise line.fail("DOT INCLUDE needs a file")
        else:
            raise line.fail(f"unexpected {word!r} in DOT")
    return out


def node_status_file(line: Line) -> tuple[str, int, bool]:
    """`NODE_STATUS_FILE file [seconds] [ALWAYS-UPDATE]`: the file, how often it is
    rewritten (60 s unless said), and whether even when nothing changed."""
    words = line.words[1:]
    if not 1 <= len(words) <= 3:
        raise line.fail("NODE_STATUS_FILE needs a file, then a time, ALWAYS-UPDATE")
    seconds, always = 60, False
    for word in words[1:]:
        if keyword(word) == "ALWAYS_UPDATE":
            always = True
        else:
            seconds = int_of(line, word, "NODE_STATUS_FILE's update time")
    return words[0], seconds, always
