"""The ledger's account of its commits, as the SchedLog reports it each minute."""

from __future__ import annotations

import time

from condorx.daemons.schedd.commit_account import CommitAccount


def test_the_account_says_how_many_how_large_how_long_and_how_long_a_change_waited():
    account = CommitAccount(period=60.0, started=time.monotonic() - 61)
    assert not account.due()  # nothing to report yet
    account.add(10, 0.020, 0.5)
    account.add(30, 0.040, 1.5)
    assert account.due()
    line = account.line()
    assert line.startswith("queue commits in 6")
    assert line.endswith(
        ": 2, 20.0 changes each, 30.0 ms each (longest 40.0 ms); "
        "a change waited 50.0 ms for its commit"
    )
    assert not CommitAccount(period=60.0).due()  # a period has not passed
