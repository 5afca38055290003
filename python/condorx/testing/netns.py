"""Several "hosts" on one machine: network namespaces joined by veth pairs to a bridge,
each with its own address, so a pool's daemons talk over a real (virtual) network as
they would across machines. Needs root (CAP_NET_ADMIN) and `ip`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

SUBNET = "10.77.{net}.{host}"


def available() -> str | None:
    """None when namespaces can be made here, else why not."""
    if shutil.which("ip") is None:
        return "the ip command is not installed"
    probe = f"cxprobe{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode != 0:
        return f"cannot create network namespaces: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)
    return None


def _ip(*args: str, ns: str | None = None) -> None:
    argv = ["ip", "netns", "exec", ns, "ip", *args] if ns else ["ip", *args]
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {r.stderr.strip()}")


@dataclass
class Host:
    name: str
    ns: str
    address: str
    link: str  # the host's end of the wire, as seen from the machine (for captures)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def spawn(self, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
        with open(log, "ab") as out:
            p = subprocess.Popen(
                ["ip", "netns", "exec", self.ns, *argv],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        self.processes.append(p)
        return p

    def run(
        self, argv: list[str], env: dict[str, str], cwd: Path
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["ip", "netns", "exec", self.ns, *argv],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )

    def python(
        self, module: str, *args: str, env: dict[str, str], cwd: Path
    ) -> subprocess.CompletedProcess[str]:
        return self.run([sys.executable, "-m", module, *args], env, cwd)


class Network:
    """A bridge and one namespace per host name, torn down by `close`."""

    def __init__(self, names: list[str]) -> None:
        tag = f"{os.getpid() % 10000}"
        self.bridge = f"cxbr{tag}"
        self.net = os.getpid() % 200 + 20
        self.hosts: dict[str, Host] = {}
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("link", "set", self.bridge, "up")
        try:
            for i, name in enumerate(names, start=1):
                self._add(name, i, tag)
        except BaseException:
            self.close()
            raise

    def _add(self, name: str, i: int, tag: str) -> None:
        ns, outer = f"cx{tag}-{name}", f"cx{tag}v{i}"
        _ip("netns", "add", ns)
        address = SUBNET.format(net=self.net, host=i)
        self.hosts[name] = Host(name, ns, address, outer)
        _ip("link", "add", outer, "type", "veth", "peer", "name", "eth0", "netns", ns)
        _ip("link", "set", outer, "master", self.bridge, "up")
        _ip("addr", "add", f"{address}/24", "dev", "eth0", ns=ns)
        _ip("link", "set", "eth0", "up", ns=ns)
        _ip("link", "set", "lo", "up", ns=ns)

    def close(self) -> None:
        for host in self.hosts.values():
            for p in host.processes:
                if p.poll() is None:
                    p.terminate()
            for p in host.processes:
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
            subprocess.run(["ip", "netns", "del", host.ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
