"""condor_config_val: print configuration values the way HTCondor's tool does.

    condor_config_val [-subsystem S] [-local-name L] [-raw] [-verbose] NAME...
    condor_config_val [-subsystem S] -dump [TEXT]

Imports stay light (no rich, no trio): the tool is run once per name by scripts.
"""

from __future__ import annotations

import sys

import click


def _fail(message: str) -> None:
    click.echo(message, err=True)
    sys.exit(1)


def _usage(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """As HTCondor's (config_val.cpp): the usage, on stderr, and status 1; as a
    subcommand of `condorx`, click's way (stdout, 0)."""
    if value and not ctx.resilient_parsing:
        alone = ctx.parent is None
        click.echo(ctx.get_help(), err=alone)
        ctx.exit(1 if alone else 0)


@click.command(context_settings={"help_option_names": []})
@click.option(
    "-h",
    "-help",
    "--help",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_usage,
    help="Show this message and exit (status 1, as HTCondor's).",
)
@click.option(
    "-subsystem",
    "--subsystem",
    "subsystem",
    default=None,
    metavar="NAME",
    help="Read as this daemon (default TOOL).",
)
@click.option(
    "-local-name",
    "--local-name",
    "local_name",
    default=None,
    metavar="NAME",
    help="Read with this local name.",
)
@click.option(
    "-config",
    "--config",
    "path",
    default=None,
    metavar="FILE",
    help="The root configuration file (default: CONDORX_CONFIG, CONDOR_CONFIG).",
)
@click.option("-raw", "--raw", "raw", is_flag=True, help="Print values unexpanded.")
@click.option(
    "-verbose",
    "--verbose",
    "-v",
    "verbose",
    is_flag=True,
    help="Also print where each value was defined.",
)
@click.option(
    "-dump",
    "--dump",
    "dump",
    is_flag=True,
    help="Print every defined name (those containing NAME's text, if given).",
)
@click.argument("names", nargs=-1)
def main(
    subsystem: str | None,
    local_name: str | None,
    path: str | None,
    raw: bool,
    verbose: bool,
    dump: bool,
    names: tuple[str, ...],
) -> None:
    """Print the value of each configuration NAME."""
    from condorx.language.config import ConfigError, load_config

    try:
        cfg = load_config(subsystem=subsystem, local_name=local_name, path=path)
        if dump:
            _dump(cfg, names, raw, verbose)
            return
        if not names:
            _fail("condor_config_val: name a parameter to print (or use -dump)")
        missing = [name for name in names if not _show(cfg, name, raw, verbose)]
    except ConfigError as exc:
        _fail(f"condor_config_val: configuration error: {exc}")
        return
    for name in missing:
        click.echo(f"Not defined: {name}", err=True)
    if missing:
        sys.exit(1)


def _show(cfg: object, name: str, raw: bool, verbose: bool) -> bool:
    from condorx.language.config import Config

    assert isinstance(cfg, Config)
    value = cfg.raw(name) if raw else cfg.get(name)
    if not value:
        return False
    sys.stdout.write(value + "\n")
    if verbose:
        where = cfg.where(name)
        if where is None:
            click.echo("  # at: <Default>")
        else:
            source, line = where
            click.echo(f"  # at: {source}" + (f", line {line}" if line else ""))
        if not raw:
            click.echo(f"  # raw: {cfg.raw(name)}")
    return True


def _dump(cfg: object, filters: tuple[str, ...], raw: bool, verbose: bool) -> None:
    from condorx.language.config import Config, ConfigError

    assert isinstance(cfg, Config)
    click.echo(f"# Configuration from {', '.join(cfg.files) or '<built-in defaults>'}")
    wanted = [f.upper() for f in filters]
    for name in cfg.names():
        if wanted and not any(w in name.upper() for w in wanted):
            continue
        try:
            value = cfg.raw(name) if raw else cfg.get(name)
        except ConfigError as exc:  # one bad value (a cycle) does not hide the others
            click.echo(f"# {name}: {exc}", err=True)
            continue
        click.echo(f"{name} = {value or ''}")
        if verbose:
            where = cfg.where(name)
            if where is not None:
                click.echo(f"  # at: {where[0]}" + (f", line {where[1]}" if where[1] else ""))


if __name__ == "__main__":
    main()
