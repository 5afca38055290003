"""HTCondor's bindings on another host (a network namespace of its own, sharing nothing
with the pool but a token): they find the schedd through the collector, authenticate
with IDTOKENS, submit and query over AES-GCM; a stranger on the wire sees none of the
job."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from condorx.testing import netns
from condorx.testing.capture import Capture
from condorx.transport import security, tokens

WHY_NOT = netns.available()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"no network namespaces: {WHY_NOT}")

POOL = """\
LOCAL_DIR = {dir}
SPOOL = $(LOCAL_DIR)/spool
LOG = $(LOCAL_DIR)/log
LOCK = $(LOCAL_DIR)/lock
NETWORK_INTERFACE = {address}
COLLECTOR_HOST = {address}:9618
UID_DOMAIN = pool.example
SCHEDD_NAME = schedd@cm
SEC_TOKEN_POOL_SIGNING_KEY_FILE = {key}
SCHEDD_INTERVAL = 2
"""

CLIENT = """\
COLLECTOR_HOST = {address}:9618
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_ENCRYPTION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS
SEC_TOKEN_DIRECTORY = {tokens}
SEC_TOKEN_SYSTEM_DIRECTORY = {tokens}
SEC_TOKEN_POOL_SIGNING_KEY_FILE = {tokens}/no-key-here
"""

SCRIPT = """
import json, time, htcondor2 as htcondor
deadline = time.time() + 40
while True:  # until the schedd has advertised itself
    try:
        # Not this host's schedd: the pool's, by name.
        found = htcondor.Collector().locate(htcondor.DaemonTypes.Schedd, "schedd@cm")
        schedd = htcondor.Schedd(found)
        break
    except Exception:
        if time.time() > deadline:
            raise
        time.sleep(0.3)
sub = htcondor.Submit({"executable": "/bin/true", "My.Flavor": '"secret-saffron"'})
cluster = schedd.submit(sub, count=2).cluster()
jobs = schedd.query(f"ClusterId == {cluster}", ["Owner", "Flavor"])
print(json.dumps(sorted([j["Owner"], j["Flavor"]] for j in jobs)))
"""


def test_a_remote_client_with_a_token_submits_over_aes(tmp_path: Path):
    net = netns.Network(["cm", "user"])
    try:
        cm, user = net.hosts["cm"], net.hosts["user"]
        key = tmp_path / "POOL"
        security.ensure_pool_key(key)
        pool = tmp_path / "cm"
        pool.mkdir()
        (pool / "condor_config").write_text(POOL.format(dir=pool, address=cm.address, key=key))
        env = {**os.environ, "CONDORX_CONFIG": str(pool / "condor_config")}
        for daemon in ("collector", "schedd"):
            cm.spawn([sys.executable, "-m", "condorx.daemons", daemon], env, tmp_path / daemon)
            time.sleep(0.3)
        token_dir = tmp_path / "tokens"
        token_dir.mkdir()
        token = tokens.make(tokens.signing_key(key), "pool.example", "alice@pool.example", 600)
        (token_dir / "alice").write_text(token + "\n")
        (token_dir / "alice").chmod(0o600)
        client = tmp_path / "client.config"
        client.write_text(CLIENT.format(address=cm.address, tokens=token_dir))
        wire = Capture([h.link for h in net.hosts.values()])
        user_env = {**os.environ, "CONDOR_CONFIG": str(client)}
        user_env.pop("CONDORX_CONFIG", None)
        r = user.run([sys.executable, "-c", textwrap.dedent(SCRIPT)], user_env, tmp_path)
        seen = wire.stop()
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout.strip().splitlines()[-1] == (
            '[["alice", "secret-saffron"], ["alice", "secret-saffron"]]'
        )
        assert b"secret-saffron" not in seen and b"Flavor" not in seen
    finally:
        net.close()
