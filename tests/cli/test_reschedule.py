"""condor_reschedule on a real pool: the schedd asks the negotiator for a cycle now, long
before its NEGOTIATOR_INTERVAL comes round."""

from __future__ import annotations

from condorx.testing.pool import QUICK_POOL, wait_for


def _cycles(pool) -> int:
    log = pool.root / "log" / "NegotiatorLog"
    return log.read_text().count("Started Negotiation Cycle") if log.exists() else 0


def test_condor_reschedule_starts_a_negotiation_cycle(pool):
    with open(pool.config_file, "a") as f:
        f.write(QUICK_POOL + "NEGOTIATOR_INTERVAL = 3600\n")
    pool.reload()
    pool.start("collector", "negotiator", "schedd")
    wait_for(lambda: _cycles(pool) >= 1, "the negotiator's first cycle")
    before = _cycles(pool)
    r = pool.cli("condorx.cli.reschedule")
    assert r.stdout == 'Sent "Reschedule" command to local schedd\n'
    wait_for(lambda: _cycles(pool) > before, "a cycle asked for by condor_reschedule")
