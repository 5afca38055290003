"""Programs run as another local account than the tests' own (root's), as a second user
of a shared pool runs them: its own uid and gid, no supplementary groups, a home of its
own, and the pool's configuration. The pool's daemons then learn who it is as they
would from any user: from the kernel (a local socket's peer, a file's owner), never
from anything the program says."""

from __future__ import annotations

import atexit
import functools
import os
import pwd
import shutil
import site
import stat
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

# Accounts every Debian (and most Linux) machine has, with no login: real users to the
# kernel, and nobody's own files beyond the system's.
USERS = ("daemon", "bin")


def home_for(root: Path, user: str) -> Path:
    """A home directory of `user`'s own under `root` (theirs are not writable)."""
    home = root / "home" / user
    home.mkdir(parents=True, exist_ok=True)
    (root / "home").chmod(0o755)
    pw = pwd.getpwnam(user)
    os.chown(home, pw.pw_uid, pw.pw_gid)
    home.chmod(0o700)
    return home


def ids(user: str) -> tuple[int, int]:
    pw = pwd.getpwnam(user)
    return pw.pw_uid, pw.pw_gid


def environment(root: Path, user: str, env: dict[str, str]) -> dict[str, str]:
    """`env` as `user`'s: their HOME, USER and LOGNAME; no token of anyone else's."""
    out = {k: v for k, v in env.items() if k != "CONDORX_TOKEN"}
    out.update(HOME=str(home_for(root, user)), USER=user, LOGNAME=user)
    return out


def run(
    user: str,
    argv: Sequence[str],
    env: dict[str, str],
    cwd: Path,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` as `user` (the caller is root)."""
    pw = pwd.getpwnam(user)
    return subprocess.run(
        list(argv),
        env=env,
        cwd=cwd,
        user=pw.pw_uid,
        group=pw.pw_gid,
        extra_groups=[],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def tool(name: str) -> list[str]:
    """How another account runs an installed command (condor_submit, ...) of this
    Python's environment: its script, by an interpreter that account may run."""
    return [python(), str(Path(sys.executable).parent / name)]


def _reachable(path: str) -> bool:
    """Whether every account may reach and run `path` (each directory searchable)."""
    real = Path(os.path.realpath(path))
    dirs_ok = all(p.stat().st_mode & stat.S_IXOTH for p in real.parents)
    return dirs_ok and bool(real.stat().st_mode & stat.S_IXOTH)


@functools.cache
def python() -> str:
    """An interpreter of this Python's version, with this environment's packages, that
    every account may run. The tests' own may live where only root may look (a pyenv
    under /root): then the system's interpreter of the same version, in an environment
    of its own that reads this one's packages."""
    if _reachable(sys.executable) and _reachable(sys.base_prefix):
        return sys.executable
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    system = next(
        (
            p
            for p in (f"/usr/bin/{version}", f"/usr/local/bin/{version}")
            if os.path.exists(p) and _reachable(p)
        ),
        None,
    )
    if system is None:
        raise RuntimeError(f"no {version} that other accounts may run")
    env = Path(tempfile.mkdtemp(prefix="condorx-shared-python-"))
    env.chmod(0o755)
    (env / "bin").mkdir()
    (env / "bin" / "python").symlink_to(system)
    (env / "pyvenv.cfg").write_text(f"home = {os.path.dirname(system)}\n")
    packages = env / "lib" / version / "site-packages"
    packages.mkdir(parents=True)
    # A .pth line that imports runs: the packages' own .pth files (an editable
    # condorx's) are read too, as they are in this environment.
    lines = "".join(f"import site; site.addsitedir({d!r})\n" for d in site.getsitepackages())
    (packages / "tests-environment.pth").write_text(lines)
    for p in (env, *env.rglob("*")):
        if not p.is_symlink():
            p.chmod(0o755 if p.is_dir() else 0o644)
    atexit.register(shutil.rmtree, env, True)
    return str(env / "bin" / "python")
