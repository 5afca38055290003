"""The package's seams, checked on its source: no module imports another that imports it
back (late and TYPE_CHECKING imports count, as `../shared/tools/import_cycles.py` counts
them), no module is past 500 lines, no module imports a layer above its own (the layers
are listed in `condorx/__init__.py`), only the language, host and wire layers reach the
Rust core, and no request is built as a dict literal outside the protocol's types and
the server that decodes them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "condorx"
TOOL = PACKAGE.parents[2] / "shared" / "tools" / "import_cycles.py"
# Where a frame's "cmd" may be written: the request types, and the frames' own module.
REQUESTS_HOME = ("transport/protocol/", "transport/wire.py")
# Each package's layer, lowest first: a module imports only from its own layer or below.
LAYERS = {
    "errors": 0,
    "version": 0,
    "record": 0,
    "classad": 2,
    "host": 1,
    "language": 2,
    "transport": 3,
    "client": 4,
    "daemons": 5,
    "dagman": 5,
    "sim": 5,
    "cli": 6,
    "demo": 6,
    "bench": 6,
    "testing": 6,
}
# The Rust core is reached through these layers' wrappers only.
CORE_USERS = ("errors", "classad", "host", "language", "transport")


def _imports(path: Path) -> list[tuple[int, str]]:
    """The condorx modules `path` imports (late imports too), with their lines."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                parts = whole.split(".")
                is_module = (
                    PACKAGE.parent.joinpath(*parts).with_suffix(".py").exists()
                    or PACKAGE.parent.joinpath(*parts).is_dir()
                )
                found.append((node.lineno, whole if is_module else node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return [(line, name) for line, name in found if name.split(".")[0] == "condorx"]


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_no_module_imports_a_higher_layer():
    modules = [
        p for p in sorted(PACKAGE.rglob("*.py")) if p.parent != PACKAGE or p.stem != "__init__"
    ]
    assert len(modules) > 250
    upward = []
    for path in modules:
        rel = path.relative_to(PACKAGE)
        own = rel.parts[0].removesuffix(".py")
        assert own in LAYERS, f"{rel}: a package with no layer"
        for line, name in _imports(path):
            top = _top(name)
            if top == "_core":
                if own not in CORE_USERS:
                    upward.append(f"{rel}:{line} reaches the Rust core ({name})")
            elif top and LAYERS[top] > LAYERS[own]:
                upward.append(f"{rel}:{line} {own} imports {name}")
    assert upward == []


def test_no_module_is_past_500_lines():
    # Past that a module holds more than one concept; the generated knob table is data.
    long = [
        f"{p.relative_to(PACKAGE)}: {n}"
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.name != "_param_table.py" and (n := len(p.read_text().splitlines())) > 500
    ]
    assert long == []


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
