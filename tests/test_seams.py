"""The package's seams, checked on its source: no module imports another that imports it
back (late and TYPE_CHECKING imports count, as `../shared/tools/import_cycles.py` counts
them), and no request is built as a dict literal outside the protocol's types and the
server that decodes them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "condorx"
TOOL = PACKAGE.parents[2] / "shared" / "tools" / "import_cycles.py"
# Where a frame's "cmd" may be written: the request types, and the frames' own module.
REQUESTS_HOME = ("protocol/", "wire.py")


def test_no_import_cycles():
    out = subprocess.run(
        [sys.executable, str(TOOL), str(PACKAGE)], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1].startswith("0 import cycles"), out


def test_no_request_literal_outside_the_protocol():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(REQUESTS_HOME):
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "cmd" for k in node.keys
            ):
                found.append(f"{rel}:{node.lineno}")
    assert found == []
