"""Job ids as HTCondor writes them (`cluster.proc`), and the two readings of one: a job's
own id (a routed copy's RoutedFromJobId, a query's `after`) and a request's name for a
job or a whole cluster (condor_rm 5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from condorx.daemons.schedd.choosing import parse_id
from condorx.daemons.schedd.store import job_id, parse_job_id


@given(st.integers(0, 2**40), st.integers(0, 2**20))
def test_an_id_written_is_read_back(cluster, proc):
    assert parse_job_id(job_id((cluster, proc))) == (cluster, proc)
    assert parse_id(job_id((cluster, proc))) == (cluster, proc)


@pytest.mark.parametrize("text", ["5", "", ".3", "a.1", "5.x", "5.3.1", "-1.0", "5.-1", None, 7])
def test_a_job_id_names_one_proc(text):
    assert parse_job_id(text) is None


@pytest.mark.parametrize(("text", "key"), [("5", (5, -1)), ("5.", (5, -1)), ("5.3", (5, 3))])
def test_a_request_may_name_a_whole_cluster(text, key):
    assert parse_id(text) == key


@pytest.mark.parametrize("text", ["", ".3", "x", "5.x", "5.3.1"])
def test_a_request_name_that_is_neither_is_refused(text):
    assert parse_id(text) is None
