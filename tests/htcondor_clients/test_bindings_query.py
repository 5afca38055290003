"""HTCondor's Python bindings (htcondor 25.14.1, `htcondor2`), unchanged, query a condorx
pool over HTCondor's wire protocol: the collector's ads and the schedd's jobs, with and
without authentication and encryption, on one session or several."""

from __future__ import annotations

import getpass

from condorx.testing import bindings

FS_AES = """\
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_ENCRYPTION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = FS
"""


def test_collector_query_answers_each_type_with_constraint_projection_and_limit(pool):
    r = bindings.run(
        pool,
        """
        import htcondor2 as htcondor
        c = htcondor.Collector()
        result({
            "schedd": [a["Name"] for a in c.query(htcondor.AdTypes.Schedd)],
            "submitter": [a["Name"] for a in c.query(htcondor.AdTypes.Submitter)],
            "startd": len(c.query(htcondor.AdTypes.Startd)),
            "any": sorted(a["MyType"] for a in c.query(htcondor.AdTypes.Any)),
            "projected": [sorted(a.keys()) for a in
                          c.query(htcondor.AdTypes.Schedd, projection=["Name", "MyType"])],
            "none": len(c.query(htcondor.AdTypes.Schedd, constraint='Name == "nobody"')),
        })
        """,
    )
    assert r.returncode == 0, r.stderr
    user = getpass.getuser()
    assert r.value["schedd"] == ["test-schedd@loopback"]
    assert [n.split("@")[0] for n in r.value["submitter"]] == [user]
    assert r.value["startd"] == 0
    assert r.value["any"] == ["Scheduler", "Submitter"]
    assert r.value["projected"] == [["MyType", "Name"]]
    assert r.value["none"] == 0


SCHEDD_QUERIES = """
import htcondor2 as htcondor
schedd = htcondor.Schedd(htcondor.Collector().locate(htcondor.DaemonTypes.Schedd))
jobs = schedd.query()
result({
    "ids": sorted((j["ClusterId"], j["ProcId"]) for j in jobs),
    "flavor": sorted({j["Flavor"] for j in jobs}),
    "args": sorted({j["Arguments"] for j in jobs}),
    "owner": sorted({j["Owner"] for j in jobs}),
    "chosen": [j["ProcId"] for j in schedd.query("ProcId >= 1", ["ProcId"])],
    "projected": sorted(k for k in schedd.query("ProcId == 2", ["ProcId", "Flavor"])[0].keys()),
    "limited": len(schedd.query(limit=2)),
})
"""


def _check_jobs(value: dict) -> None:
    assert value["ids"] == [[1, 0], [1, 1], [1, 2]]
    assert value["flavor"] == ["mint"]
    assert value["args"] == ["a b' 'c"]  # HTCondor's canonical V2 quoting
    assert value["owner"] == [getpass.getuser()]
    assert sorted(value["chosen"]) == [1, 2]
    assert value["projected"] == ["Flavor", "ProcId"]
    assert value["limited"] == 2


def test_schedd_query_through_a_located_schedd(pool):
    r = bindings.run(pool, SCHEDD_QUERIES)
    assert r.returncode == 0, r.stderr
    _check_jobs(r.value)


def test_queries_with_fs_authentication_and_aes_encryption(pool):
    r = bindings.run(pool, SCHEDD_QUERIES, FS_AES)
    assert r.returncode == 0, r.stderr
    _check_jobs(r.value)


def test_a_client_that_never_negotiates_sends_raw_commands(pool):
    r = bindings.run(pool, SCHEDD_QUERIES, "SEC_CLIENT_NEGOTIATION = NEVER\n")
    assert r.returncode == 0, r.stderr
    _check_jobs(r.value)


SUMMARY = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
ads = schedd.query(opts=htcondor.QueryOpt.SummaryOnly)
chosen = schedd.query("ProcId > 0", opts=htcondor.QueryOpt.SummaryOnly)
result([[dict(a) for a in ads], [dict(a) for a in chosen]])
"""


def test_a_summary_only_query_answers_htcondors_totals(pool):
    r = bindings.run(pool, SUMMARY)
    assert r.returncode == 0, r.stderr
    (every,), (chosen,) = r.value
    assert every["MyType"] == "Summary" and every["ErrorCode"] == 0
    assert (every["Jobs"], every["Idle"], every["Running"], every["Held"]) == (3, 3, 0, 0)
    assert (every["AllusersJobs"], every["AllusersIdle"]) == (3, 3)
    assert (chosen["Jobs"], chosen["Idle"], chosen["AllusersJobs"]) == (2, 2, 3)
    assert isinstance(every["ServerTime"], int)
