"""Late materialization through HTCondor's bindings: `Schedd.submit(sub, itemdata=...)`
with max_materialize or max_idle sends a submit digest and its rows (SetJobFactory,
SendMaterializeData); condorx's schedd makes each job from them as its turn comes.

The oracle is HTCondor's own submit code: the same description submitted without a
factory, every job built by the wheel and sent whole. The jobs the factory makes must be
those jobs, attribute for attribute, but for what says when and by which route a job
came (its ids, times, and the factory's own attributes)."""

from __future__ import annotations

import pytest

from condorx.testing import bindings

SUBMIT = """
import {module} as htcondor, os
os.chdir({cwd!r})
schedd = htcondor.Schedd()
desc = {{
    "executable": "/bin/echo",
    "arguments": "$(name) $(ProcId) '$(words)'",
    "output": "out.$(name).$(Step)",
    "error": "err.$(ProcId)",
    "transfer_input_files": "in.$(name)",
    "should_transfer_files": "YES",
    # Not $(ItemIndex): HTCondor's digest expands it (it is not among the per-proc names
    # make_digest keeps), so a factory's jobs all have the first row's, on HTCondor too.
    "environment": '"NAME=$(name) N=$(Row)"',
    "request_memory": "$(mem)",
    "tag": "t-$(name)",
    "My.Tag": '"$(tag)"',
    "My.Row": "$(Row)",
    "log": "job.log",
}}
rows = [
    {{"name": "alpha", "words": "a b", "mem": "100"}},
    {{"name": "beta", "words": "", "mem": "2 GB"}},
    {{"name": "gamma", "words": "c,d", "mem": "300"}},
]
def submit(extra):
    r = schedd.submit(htcondor.Submit({{**desc, **extra}}), itemdata=iter(rows), count=2)
    ads = schedd.query(f"ClusterId == {{r.cluster()}}")
    return r.num_procs(), sorted(({{k: str(v) for k, v in ad.items()}} for ad in ads),
                                 key=lambda ad: int(ad["ProcId"]))
whole = submit({{}})
limited = submit({{"max_materialize": "2"}})
all_at_once = submit({{"max_materialize": "100"}})
idle = submit({{"max_idle": "1"}})
result({{"whole": whole, "limited": limited, "all": all_at_once, "idle": idle}})
"""

# What says when and by which route a job came, not what the job is.
ROUTE = {
    "ClusterId",
    "GlobalJobId",
    "QDate",
    "EnteredCurrentStatus",
    "JobMaterializeLimit",
    "JobMaterializeNextProcId",
    "JobMaterializeDigestFile",
    "JobMaterializeItemsFile",
    "JobMaterializeMaxIdle",
    "TotalSubmitProcs",
    "ServerTime",
}


@pytest.mark.parametrize("legacy", [False, True], ids=["htcondor2", "htcondor-24"])
def test_a_factory_makes_the_jobs_htcondors_submit_code_makes(pool, tmp_path, legacy):
    python = bindings.LEGACY_PYTHON if legacy else bindings.PYTHON
    code = SUBMIT.format(module="htcondor" if legacy else "htcondor2", cwd=str(tmp_path))
    r = bindings.run(pool, code, python=python)
    assert r.returncode == 0, r.stderr
    v = r.value
    count, whole = v["whole"]
    assert count == 6 and [int(ad["ProcId"]) for ad in whole] == list(range(6))
    n, limited = v["limited"]
    assert n == 6 and [int(ad["ProcId"]) for ad in limited] == [0, 1]
    assert limited[0]["JobMaterializeLimit"] == "2"
    n, every = v["all"]
    assert n == 6 and len(every) == 6
    for made, built in zip(every, whole, strict=True):
        differ = {
            k: (made.get(k), built.get(k))
            for k in set(made) | set(built)
            if k not in ROUTE and made.get(k) != built.get(k)
        }
        assert differ == {}, f"proc {built['ProcId']}"
    n, idle = v["idle"]
    assert n == 6 and [int(ad["ProcId"]) for ad in idle] == [0]


CLUSTER_ADS = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
sub = htcondor.Submit({"executable": "/bin/echo", "arguments": "$(item)",
                       "max_materialize": "1"})
cluster = schedd.submit(sub, itemdata=iter(["a", "b", "c"])).cluster()
names = ["ClusterId", "ProcId", "JobMaterializeNextProcId", "TotalSubmitProcs"]
where = f"ClusterId == {cluster}"
both = schedd.query(where, names, opts=htcondor.QueryOpt.IncludeClusterAd)
only = schedd.query(where, names, opts=htcondor.QueryOpt(0x50))  # and fetch_NoProcAds
result({"both": [[a.get(n) for n in names] for a in both],
        "only": [[a.get(n) for n in names] for a in only], "cluster": cluster})
"""


def test_the_cluster_ad_of_a_factory_is_queried_before_its_jobs(pool):
    """QueryOpt.IncludeClusterAd, and with NoProcAds (fetch_ClusterAds, condor_q -factory): the
    cluster's own ad, whose factory state says what is to come."""
    r = bindings.run(pool, CLUSTER_ADS)
    assert r.returncode == 0, r.stderr
    c = r.value["cluster"]
    assert r.value["both"] == [[c, -1, 1, 3], [c, 0, 1, 3]]
    assert r.value["only"] == [[c, -1, 1, 3]]
