"""condor_token_create and condor_token_list: the pool's tokens, in HTCondor's format (a
JWT signed from the pool signing key, `condorx.transport.tokens`), good for condorx's tools and
for HTCondor's own clients alike.

condor_token_create needs the pool signing key (administrators can read it); it prints
the token, or writes it (mode 0600) under SEC_TOKEN_DIRECTORY with -token.
condor_token_list prints each token it finds as HTCondor's does:
`Header: {...} Payload: {...} File: PATH`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from condorx.cli import args as a
from condorx.cli.common import fail, load
from condorx.transport import locate, security, tokens

CREATE_OPTIONS = [
    a.Opt("identity", 2, 1, help="the identity the token authenticates as", metavar="USER@DOMAIN"),
    a.Opt("key", 2, 1, help="the signing key to use (only POOL is kept)", metavar="KEYID"),
    a.Opt("authz", 2, 1, help="limit the token to this authorization level (repeatable)"),
    a.Opt("lifetime", 2, 1, help="the token's lifetime, in seconds", metavar="VAL"),
    a.Opt("token", 2, 1, help="write the token to this file of tokens.d", metavar="NAME"),
    a.Opt("file", 2, 1, help="write the token to this file", metavar="NAME"),
]
CREATE_USAGE = (
    "condor_token_create -identity USER@DOMAIN [-key KEYID] [-authz AUTHZ] [-lifetime VAL]"
    " [-token NAME | -file NAME]"
)


# token_create.cpp: print_usage() exits 1, on stderr.
@a.command("condor_token_create", CREATE_OPTIONS, CREATE_USAGE, help_exit=1, help_to_stderr=True)
def create(ctx: a.Context) -> None:
    """Create a token signed with the pool signing key: print it, or save it."""
    opts = a.parsed(ctx)
    cfg = load("condor_token_create")
    domain = cfg.get("UID_DOMAIN") or "localhost"
    identity = opts.value("identity") or f"{security.current_user()}@{domain}"
    if "@" not in identity:
        identity = f"{identity}@{domain}"
    key_id = opts.value("key") or "POOL"
    if key_id != "POOL":
        fail(f"condor_token_create: no signing key {key_id!r} (only POOL is kept)", 2)
    lifetime = _lifetime(opts.value("lifetime"))
    scopes = [f"condor:/{level.upper()}" for level in opts.values.get("authz", [])]
    path = Path(locate.pool_key_file(cfg))
    try:
        key = path.read_bytes().strip()
    except OSError as e:
        fail(
            f"Failed to generate a token.\ncannot read the pool signing key {path}: {e.strerror}", 2
        )
    issuer = cfg.get("TRUST_DOMAIN") or domain
    try:
        token = security.make_token(key, identity, issuer, lifetime, scopes)
    except security.AuthError as e:
        fail(f"Failed to generate a token.\n{e}", 2)
    name, file = opts.value("token"), opts.value("file")
    if name is None and file is None:
        print(token)
        return
    out = Path(file) if file is not None else Path(locate.token_dir(cfg)) / str(name)
    _write_private(out, token + "\n")


def _lifetime(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        fail(f"condor_token_create: Invalid argument for -lifetime: {text}.", 1)
    return value


def _write_private(path: Path, text: str) -> None:
    """A token file nobody else may read (HTCondor's clients refuse any other)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        path.chmod(0o600)
    except OSError as e:
        fail(f"Cannot write the token to {path}: {e.strerror}", 1)


LIST_OPTIONS = [
    a.Opt("dir", 1, 1, help="look in this directory for tokens", metavar="PATH"),
    a.Opt("file", 1, 1, help="look in this file for a token", metavar="FILE"),
]


@a.command("condor_token_list", LIST_OPTIONS, "condor_token_list [-dir PATH | -file FILE]")
def list_tokens(ctx: a.Context) -> None:
    """List the tokens available to the current user."""
    opts = a.parsed(ctx)
    if opts.value("file") is not None:
        _print_file(Path(str(opts.value("file"))))
        return
    cfg = load("condor_token_list")
    where = opts.value("dir")
    if where is not None:
        directory = Path(where)
    elif os.geteuid() == 0:
        directory = Path(cfg.get("SEC_TOKEN_SYSTEM_DIRECTORY") or "/etc/condor/tokens.d")
    else:
        directory = Path(locate.token_dir(cfg))
    try:
        names = sorted(p for p in directory.iterdir() if p.is_file())
    except OSError:
        return
    for path in names:
        _print_file(path)


def _print_file(path: Path) -> None:
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        print(f"Failed to open token file '{path}': {e}", file=sys.stderr)
        return
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            header, payload = tokens.decoded(line)
        except tokens.TokenError:
            continue
        print(f"Header: {_compact(header)} Payload: {_compact(payload)} File: {path}")


def _compact(obj: object) -> str:
    return json.dumps(obj, separators=(",", ":"))
