"""htmap 0.6.1 (HTCondor's legacy bindings, shared delivery) maps a function over its
inputs on a condorx pool and reads the results back: its jobs send `_htmap_transfer/`
(a directory's contents) and `_htmap_user_transfer/<n>` (a directory), and
transfer_output_remaps puts each `<n>.out` in the map's outputs/; htmap follows the
jobs through their event log."""

from __future__ import annotations

from condorx.testing import bindings
from condorx.testing.pool import QUICK_POOL, LocalPool

MAP = """
import htmap
htmap.settings["DELIVERY_METHOD"] = "shared"
def double(x):
    return 2 * x
m = htmap.map(double, [1, 2, 3])
m.wait(timeout=90)
result({"statuses": [s.value for s in m.component_statuses], "outputs": list(m)})
"""


def test_a_map_runs_and_its_outputs_arrive(tmp_path):
    config = "CLASSAD_LIFETIME = 60\n" + QUICK_POOL
    daemons = ("collector", "negotiator", "startd", "schedd")
    with LocalPool.running(tmp_path, *daemons, config=config) as pool:
        env = {"HTMAP_DIR": str(tmp_path / "htmap")}
        r = bindings.run(pool, MAP, python=bindings.LEGACY_PYTHON, timeout=150, env=env)
        assert r.returncode == 0, r.stderr[-3000:]
        assert r.value == {"statuses": ["COMPLETED"] * 3, "outputs": [2, 4, 6]}
