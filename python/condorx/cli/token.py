"""condor_token_create: mint a token for a user, signed with the pool key (admins only,
since only they can read the key)."""

from __future__ import annotations

import click

from condorx import locate, security
from condorx.cli import args as a
from condorx.cli.common import fail, load

OPTIONS = [
    a.Opt(
        "identity",
        2,
        1,
        help="the identity the token authenticates as (default: you)",
        metavar="USER",
    ),
    a.Opt(
        "token",
        2,
        1,
        help="store the token in this file of SEC_TOKEN_DIRECTORY, not stdout",
        metavar="FILE",
    ),
]
USAGE = "condor_token_create [-identity USER] [-token FILE]"


@a.command("condor_token_create", OPTIONS, USAGE)
@click.pass_context
def create(ctx: click.Context) -> None:
    """Create a token for USER, signed with the pool key: print it, or save it (-token)."""
    opts = a.parsed(ctx)
    user = opts.value("identity") or security.current_user()
    cfg = load("condor_token_create")
    path = locate.pool_key_file(cfg)
    try:
        key = path.read_bytes().strip()
    except OSError as e:
        fail(f"condor_token_create: cannot read the pool signing key {path}: {e.strerror}")
    try:
        token = security.make_token(key, user.split("@", 1)[0])
    except security.AuthError as e:
        fail(f"condor_token_create: {e}")
    dest = opts.value("token")
    if dest is None:
        print(token)
        return
    out = locate.token_dir(cfg) / dest
    out.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    out.write_text(token + "\n")
    out.chmod(0o600)
    print(f"Token for {user} written to {out}")
