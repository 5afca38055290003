"""The DOT file (DOT command): the DAG as a Graphviz graph, each node drawn by its state,
as HTCondor's DAGMan writes it (`Dag::DumpDotFile`): once at the start, and again as the
DAG moves with UPDATE; with DONT-OVERWRITE each goes to a new `FILE.N`."""

from __future__ import annotations

import os
import time
from pathlib import Path

from condorx.dagman.engine import Engine
from condorx.dagman.node_state import DONE, ERROR, POSTRUN, PRERUN, SUBMITTED

_LOOK = {
    PRERUN: '(Pre)" style=dotted',
    SUBMITTED: '(R)" peripheries=2',
    POSTRUN: '(Post)" style=dotted',
    DONE: '(Done)" style=bold',
}


class DotFile:
    def __init__(self, settings: dict[str, object]) -> None:
        self.name = str(settings["file"])
        self.update = bool(settings.get("update"))
        self.overwrite = bool(settings.get("overwrite", True))
        include = settings.get("include")
        self.include = str(include) if include else None
        self._suffix = 0

    def write(self, engine: Engine) -> None:
        path = Path(self._choose())
        tmp = path.with_name(path.name + ".temp")
        tmp.write_text(self.text(engine))
        os.replace(tmp, path)

    def text(self, engine: Engine) -> str:
        stamp = time.strftime("%a %b %e %H:%M:%S %Y", time.localtime())
        out = ["digraph DAG {\n", f'    label="DAGMan Job status at {stamp}";\n\n']
        out.append(self._included())
        for name, st in engine.states.items():
            if st.status == ERROR:
                out.append(f'    "{name}" [shape=box label="{name} (E)"];\n')
            else:
                look = _LOOK.get(st.status, '(I)"')
                out.append(f'    "{name}" [shape=ellipse label="{name} {look}];\n')
        out.append("\n")
        for name, node in engine.dag.nodes.items():
            out += [f'    "{name}" -> "{child}";\n' for child in node.children]
        out.append("}\n")
        return "".join(out)

    def _included(self) -> str:
        if self.include is None:
            return ""
        try:
            body = Path(self.include).read_text()
        except OSError:
            return ""
        return (
            f"// Beginning of commands included from {self.include}.\n{body}"
            f"// End of commands included from {self.include}.\n\n"
        )

    def _choose(self) -> str:
        if self.overwrite:
            return self.name
        while os.path.exists(f"{self.name}.{self._suffix}"):
            self._suffix += 1
        chosen = f"{self.name}.{self._suffix}"
        self._suffix += 1
        return chosen
