"""Two local users on a pool whose daemons run as root, each in processes of their own
account (not the pool's), through condorx's tools and HTCondor's own bindings, with FS
and with tokens: each submits, queries and acts on their own jobs only, each job runs
as its owner whatever its ad claims, and the queue's files and each job's spool are
readable only by the pool's account and the job's owner."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from condorx.testing import accounts, bindings
from condorx.testing.pool import QUICK_POOL, LocalPool, wait_for

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching accounts needs root")

ALICE, BOB = accounts.USERS  # two real accounts of this machine


@pytest.fixture(scope="module")
def shared() -> Iterator[LocalPool]:
    """A root pool that other accounts may use: its files and sockets where they may
    reach them, and a directory each user's jobs write their output to."""
    root = Path(tempfile.mkdtemp(prefix="condorx-shared-"))
    root.chmod(0o755)
    pool = LocalPool(root, "CLASSAD_LIFETIME = 60\n" + QUICK_POOL)
    for user in (ALICE, BOB):
        accounts.home_for(root, user)
    pool.start("collector", "negotiator", "startd", "schedd")
    try:
        yield pool
    finally:
        pool.stop()
        import shutil

        shutil.rmtree(root, ignore_errors=True)


def home(pool: LocalPool, user: str) -> Path:
    return pool.root / "home" / user


def as_user(pool: LocalPool, user: str, tool: str, *args: str, stdin: str | None = None):
    env = accounts.environment(pool.root, user, pool.env)
    return accounts.run(user, [*accounts.tool(tool), *args], env, home(pool, user), stdin)


def wheel(pool: LocalPool, user: str, code: str, config: str = "") -> bindings.Result:
    """HTCondor's bindings run by `user`, configured as such a user's would be."""
    path = home(pool, user) / "condor_config"
    env = accounts.environment(pool.root, user, bindings.client_env(pool, path, config))
    path.chmod(0o644)
    r = accounts.run(
        user, [accounts.python(), "-c", bindings.prelude() + code], env, home(pool, user)
    )
    return bindings.Result(r.returncode, bindings.value_of(r.stdout), r.stdout, r.stderr)


def id_job(pool: LocalPool, user: str, name: str, extra: str = "") -> str:
    out = home(pool, user) / f"{name}.out"
    return (
        f"executable = /usr/bin/id\narguments = -un\noutput = {out}\nerror = {out}.err\n"
        f"log = {home(pool, user)}/{name}.log\n{extra}queue\n"
    )


def ran_as(pool: LocalPool, user: str, name: str) -> str:
    out = home(pool, user) / f"{name}.out"
    wait_for(lambda: out.exists() and out.read_text(), f"{user}'s {name} to run", timeout=60)
    return out.read_text().strip()


SUBMIT_AND_ACT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
job = htcondor.Submit(SUBMIT)
cluster = schedd.submit(job).cluster()
mine = schedd.query(f"ClusterId == {cluster}", ["Owner", "User"])[0]
result({"cluster": cluster, "owner": mine["Owner"], "user": mine["User"]})
"""


def submit_with_wheel(pool: LocalPool, user: str, text: str, config: str = "") -> dict:
    code = f"SUBMIT = {text!r}\n" + SUBMIT_AND_ACT
    r = wheel(pool, user, code, config)
    assert r.returncode == 0, r.stderr
    return r.value


ACT = """
import htcondor2 as htcondor
schedd = htcondor.Schedd()
out = {}
for name, action in (("hold", htcondor.JobAction.Hold), ("remove", htcondor.JobAction.Remove)):
    try:
        ad = schedd.act(action, JOB)
        out[name] = {k: ad.get(k) for k in ("TotalSuccess", "TotalPermissionDenied")}
    except Exception as e:
        out[name] = type(e).__name__ + ": " + str(e)
result(out)
"""


def test_each_user_submits_with_the_wheel_and_runs_as_themself(shared):
    pool = shared
    a = submit_with_wheel(pool, ALICE, id_job(pool, ALICE, "wheel"))
    b = submit_with_wheel(pool, BOB, id_job(pool, BOB, "wheel"))
    domain = pool.cfg.get("UID_DOMAIN")
    assert (a["owner"], a["user"]) == (ALICE, f"{ALICE}@{domain}")
    assert (b["owner"], b["user"]) == (BOB, f"{BOB}@{domain}")
    assert ran_as(pool, ALICE, "wheel") == ALICE
    assert ran_as(pool, BOB, "wheel") == BOB


def test_a_user_acts_on_their_own_jobs_only(shared):
    pool = shared
    a = submit_with_wheel(pool, ALICE, id_job(pool, ALICE, "held", "hold = true\n"))
    job = f"{a['cluster']}.0"
    r = wheel(pool, BOB, f"JOB = {job!r}\n" + ACT)
    assert r.returncode == 0, r.stderr
    denied = {"TotalSuccess": 0, "TotalPermissionDenied": 1}
    assert r.value == {"hold": denied, "remove": denied}
    r = wheel(pool, ALICE, f"JOB = {job!r}\n" + ACT)
    assert r.value["remove"] == {"TotalSuccess": 1, "TotalPermissionDenied": 0}


def test_each_user_through_condorx_tools(shared):
    pool = shared
    text = id_job(pool, ALICE, "tools", "hold = true\n")
    (home(pool, ALICE) / "tools.sub").write_text(text)
    r = as_user(pool, ALICE, "condor_submit", "tools.sub")
    assert r.returncode == 0 and "submitted to cluster" in r.stdout, r.stderr
    cluster = r.stdout.split("submitted to cluster ")[1].rstrip(".\n")
    # Bob's condor_q shows Bob's jobs; -allusers shows Alice's too.
    assert as_user(pool, BOB, "condor_q", "-af", "ClusterId").stdout.split() == []
    listed = as_user(pool, BOB, "condor_q", "-allusers", "-af", "ClusterId", "Owner").stdout
    assert f"{cluster} {ALICE}" in listed.splitlines()
    for verb, word in (
        ("condor_rm", "remove"),
        ("condor_hold", "hold"),
        ("condor_release", "release"),
    ):
        r = as_user(pool, BOB, verb, cluster)
        assert r.returncode == 1, (verb, r.stdout)
        assert f"Couldn't find/{word} all jobs in cluster {cluster}" in r.stderr
    r = as_user(pool, BOB, "condor_qedit", cluster, "JobPrio", "7")
    assert (
        r.returncode != 0
        and ALICE in as_user(pool, ALICE, "condor_q", cluster, "-af", "Owner").stdout
    )
    assert as_user(pool, ALICE, "condor_q", cluster, "-af", "JobPrio").stdout.strip() == "0"
    r = as_user(pool, ALICE, "condor_rm", cluster)
    assert r.returncode == 0 and f"All jobs in cluster {cluster} have been marked" in r.stdout


def test_a_job_runs_as_its_owner_whatever_its_ad_claims(shared):
    pool = shared
    # OsUser is the schedd's to set: a submission's is ignored, as HTCondor's schedd
    # ignores it (IGNORE_ATTEMPTS_TO_SET_SECURE_JOB_ATTRS), and the job runs as Alice.
    text = id_job(pool, ALICE, "claims", '+OsUser = "root"\nleave_in_queue = true\n')
    a = submit_with_wheel(pool, ALICE, text)
    (home(pool, ALICE) / "claims.sub").write_text(text.replace("claims", "claims2"))
    r = as_user(pool, ALICE, "condor_submit", "claims.sub")
    assert r.returncode == 0, r.stderr
    assert ran_as(pool, ALICE, "claims") == ALICE
    assert ran_as(pool, ALICE, "claims2") == ALICE
    got = as_user(pool, ALICE, "condor_q", "-allusers", str(a["cluster"]), "-af", "Owner", "OsUser")
    assert got.stdout.split() == [ALICE, "undefined"]
    assert "attempt to edit secure attribute OsUser" in (pool.root / "log" / "SchedLog").read_text()
    # Naming another owner, root above all, is refused.
    for owner in ("root", BOB):
        claim = f'+Owner = "{owner}"\n'
        r = as_user(pool, ALICE, "condor_submit", "-", stdin=id_job(pool, ALICE, "x", claim))
        assert r.returncode == 1 and f"may not submit jobs as '{owner}'" in r.stderr, r.stderr
        w = wheel(pool, ALICE, f"SUBMIT = {id_job(pool, ALICE, 'x', claim)!r}\n" + SUBMIT_AND_ACT)
        assert w.returncode != 0 and w.value is None
        assert "may not submit jobs as" in w.stderr, w.stderr


def token_config(pool: LocalPool, user: str, token: str, name: str = "own") -> str:
    """A user's client configuration that authenticates with `token` alone."""
    tokens = home(pool, user) / f"tokens.{name}"
    tokens.mkdir(exist_ok=True)
    (tokens / "token").write_text(token + "\n")
    for p in (tokens, tokens / "token"):
        os.chown(p, *accounts.ids(user))
    (tokens / "token").chmod(0o600)
    return f"SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS\nSEC_TOKEN_DIRECTORY = {tokens}\n"


def test_each_user_with_a_token_of_their_own(shared):
    pool = shared
    domain = pool.cfg.get("UID_DOMAIN")
    made = pool.cli("condorx.cli.token:create", "-identity", f"{BOB}@{domain}").stdout.strip()
    config = token_config(pool, BOB, made)
    b = submit_with_wheel(pool, BOB, id_job(pool, BOB, "token"), config)
    assert b["owner"] == BOB
    assert ran_as(pool, BOB, "token") == BOB
    # condorx's own tools over TCP, with the token in Bob's SEC_TOKEN_DIRECTORY.
    (home(pool, BOB) / "tcp.config").write_text(f"include : {pool.config_file}\n{config}")
    env = accounts.environment(pool.root, BOB, pool.env)
    env["CONDORX_CONFIG"] = str(home(pool, BOB) / "tcp.config")
    address = pool.daemon("schedd").address()

    def tcp(tool: str, *args: str, stdin: str | None = None):
        argv = [*accounts.tool(tool), "-name", address, *args]
        return accounts.run(BOB, argv, env, home(pool, BOB), stdin)

    r = tcp("condor_submit", "-terse", "-", stdin=id_job(pool, BOB, "tcp", "hold = true\n"))
    assert r.returncode == 0, r.stderr
    cluster = r.stdout.split(".")[0]
    q = tcp("condor_q", cluster, "-af", "ClusterId", "Owner")
    assert q.stdout.splitlines() == [f"{cluster} {BOB}"], q.stderr
    # A token is its subject's: with Alice's, Bob's process acts as Alice, not on Bob's jobs.
    alices = pool.cli("condorx.cli.token:create", "-identity", f"{ALICE}@{domain}").stdout.strip()
    r = wheel(
        pool, BOB, f"JOB = {cluster + '.0'!r}\n" + ACT, token_config(pool, BOB, alices, "alices")
    )
    assert r.value["remove"] == {"TotalSuccess": 0, "TotalPermissionDenied": 1}, r.stderr
    assert tcp("condor_rm", cluster).returncode == 0


def mode_and_owner(path: Path) -> tuple[str, str]:
    import pwd

    st = path.stat()
    return stat.filemode(st.st_mode), pwd.getpwuid(st.st_uid).pw_name


def test_the_queue_and_each_spool_are_private(shared):
    pool = shared
    spool = Path(pool.cfg.get("SPOOL"))
    for name in ("job_queue.db", "job_queue.db-wal"):
        assert mode_and_owner(spool / name) == ("-rw-------", "root"), name
    # A job whose inputs were spooled (condor_submit -spool): its directory is its owner's.
    (home(pool, ALICE) / "input").write_text("alice's input\n")
    text = (
        "executable = /bin/cat\narguments = input\ntransfer_input_files = input\n"
        "hold = true\nqueue\n"
    )
    (home(pool, ALICE) / "spooled.sub").write_text(text)
    r = as_user(pool, ALICE, "condor_submit", "-spool", "spooled.sub")
    assert r.returncode == 0, r.stderr
    cluster = r.stdout.split("submitted to cluster ")[1].rstrip(".\n")
    iwd = as_user(pool, ALICE, "condor_q", cluster, "-af", "Iwd").stdout.strip()
    assert iwd.startswith(str(spool))
    assert mode_and_owner(Path(iwd)) == ("drwx------", ALICE)
    assert mode_and_owner(Path(iwd) / "input")[1] == ALICE
    peek = accounts.run(
        BOB,
        ["cat", f"{iwd}/input"],
        accounts.environment(pool.root, BOB, pool.env),
        home(pool, BOB),
    )
    assert peek.returncode != 0 and "Permission denied" in peek.stderr


LOCATE = """
import htcondor2 as htcondor
coll = htcondor.Collector()
found = coll.locate(htcondor.DaemonTypes.Schedd, NAME)
ads = coll.query(htcondor.AdTypes.Schedd, projection=["Name", "CondorVersion", "MyAddress"])
schedd = htcondor.Schedd(found)
result({"version": found["CondorVersion"], "ads": [dict(ad) for ad in ads],
        "jobs": len(schedd.query(projection=["ClusterId"]))})
"""


def test_another_user_finds_the_schedd_by_name_as_by_default(shared):
    pool = shared
    name = pool.cfg.get("SCHEDD_NAME")
    r = wheel(pool, BOB, f"NAME = {name!r}\n" + LOCATE)
    assert r.returncode == 0, r.stderr
    assert r.value["version"].startswith("$CondorVersion: ")
    (ad,) = r.value["ads"]
    assert ad["Name"] == name and ad["CondorVersion"] == r.value["version"]
