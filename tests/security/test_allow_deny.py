"""HTCondor's ALLOW_<LEVEL> / DENY_<LEVEL> lists as its daemons read them
(`condorx.daemons.core.authz`): entries, wildcards and networks, the configuration's lookup
chain, the implied levels, DENY winning, and condorx's defaults where nothing is set.
Expectations are HTCondor's rules (condor_ipverify.cpp, condor_perms.cpp, secman.cpp)."""

from __future__ import annotations

import pytest

from condorx.daemons.core.authz import Authorizer, _network, _split, wildcard
from condorx.language.config.config import Config

ALICE = "alice@example.org"
CONDOR = "condor@example.org"
ANON = "unauthenticated@unmapped"
HERE = "192.0.2.7:40000"
THERE = "198.51.100.9:40000"


def lists(text: str, subsystem: str = "SCHEDD") -> Authorizer:
    cfg = Config.from_text(text, subsystem=subsystem)
    return Authorizer.from_config(cfg, subsystem, me="pooladmin")


@pytest.mark.parametrize(
    ("pattern", "text", "match"),
    [
        ("condor@*", "condor@example.org", True),
        ("condor@*", "Condor@EXAMPLE.org", True),  # case does not matter
        ("*.cs.wisc.edu", "pool.cs.wisc.edu", True),
        ("*.cs.wisc.edu", "cs.wisc.edu", False),
        ("cm*.org", "cm.example.org", True),
        ("cm*.org", "cm.example.com", False),
        ("*foo*", "a-foo-b", True),  # a second * at the end: "contains"
        ("a*b*", "axxbyy", True),
        ("a*b*c", "a*bc", False),  # a * not first and not last is literal after the first
        ("alice@example.org", "alice@example.org.evil", False),  # whole string, no suffix
        ("*", "anything", True),
    ],
)
def test_wildcards_as_htcondor_matches_them(pattern, text, match):
    assert wildcard(pattern, text) is match


@pytest.mark.parametrize(
    ("entry", "user", "host"),
    [
        ("condor@*", "condor@*", "*"),  # no '/', an '@': a user, any host
        ("cm.example.org", "*", "cm.example.org"),  # no '/', no '@': a host, any user
        ("128.105.*", "*", "128.105.*"),
        ("*/10.0.0.0/8", "*", "10.0.0.0/8"),
        ("joe@x/192.0.2.0/24", "joe@x", "192.0.2.0/24"),
        ("joe@x/host.org", "joe@x", "host.org"),
        ("128.105.0.0/16", "*", "128.105.0.0/16"),  # one '/', the whole is a network
        ("*/*", "*", "*"),
    ],
)
def test_entries_split_as_htcondor_splits_them(entry, user, host):
    assert _split(entry) == (user, host)


@pytest.mark.parametrize(
    ("text", "inside", "outside"),
    [
        ("192.0.2.0/24", "192.0.2.200", "192.0.3.1"),
        ("192.0.2.0/255.255.255.0", "192.0.2.1", "192.0.3.1"),
        ("128.105.*", "128.105.4.4", "128.106.0.1"),
        ("128.105.", "128.105.4.4", "128.106.0.1"),
        ("10.*", "10.200.0.1", "11.0.0.1"),
        ("2001:db8::/32", "2001:db8::1", "2001:db9::1"),
        ("2001:db8:*", "2001:db8::5", "2001:db9::1"),
    ],
)
def test_networks(text, inside, outside):
    import ipaddress

    net = _network(text)
    assert net is not None
    assert ipaddress.ip_address(inside) in net
    assert ipaddress.ip_address(outside) not in net


def test_with_nothing_configured_condorx_grants_what_htcondors_recommended_config_does():
    a = lists("")
    assert a.verify("READ", ANON, HERE) and a.verify("WRITE", ALICE, HERE)
    assert a.verify("DAEMON", CONDOR, HERE) and a.verify("NEGOTIATOR", CONDOR, HERE)
    assert not a.verify("DAEMON", ALICE, HERE)
    assert a.verify("ADMINISTRATOR", "root@x", HERE)
    assert a.verify("ADMINISTRATOR", "pooladmin@example.org", HERE)  # the daemons' user
    assert not a.verify("ADMINISTRATOR", ALICE, HERE)
    assert a.verify("ADVERTISE_STARTD", CONDOR, HERE)  # ADVERTISE_* take DAEMON's list
    assert not a.verify("CONFIG", CONDOR, HERE)  # nothing grants CONFIG
    assert a.verify("DAEMON", "condor_pool@example.org", HERE)  # the pool's other name


def test_a_level_is_granted_by_a_level_that_implies_it():
    a = lists("ALLOW_READ = nobody@*\nALLOW_WRITE = alice@*\nALLOW_ADMINISTRATOR = bob@*\n")
    assert a.verify("READ", ALICE, HERE)  # WRITE implies READ
    assert a.verify("WRITE", "bob@x", HERE) and a.verify("READ", "bob@x", HERE)
    assert not a.verify("READ", "carol@x", HERE)
    assert not a.verify("ADMINISTRATOR", ALICE, HERE)  # nothing implies ADMINISTRATOR


def test_deny_wins_and_is_not_overridden_by_a_higher_level():
    a = lists("ALLOW_WRITE = *\nDENY_WRITE = alice@*\nALLOW_ADMINISTRATOR = alice@*\n")
    assert not a.verify("WRITE", ALICE, HERE)
    assert a.verify("ADMINISTRATOR", ALICE, HERE)  # ADMINISTRATOR never checks WRITE
    assert a.verify("WRITE", "bob@x", HERE)  # ALLOW_WRITE = * with a DENY: only denies
    # DENY_WRITE also cuts the path to READ through WRITE; ALLOW_READ still grants it.
    b = lists("ALLOW_READ = nobody@*\nALLOW_WRITE = *\nDENY_WRITE = alice@*\n")
    assert not b.verify("READ", ALICE, HERE)
    c = lists("ALLOW_READ = alice@*\nDENY_WRITE = alice@*\n")
    assert c.verify("READ", ALICE, HERE)


def test_deny_all_and_hosts():
    a = lists("DENY_READ = *\n")
    assert not a.verify("READ", ALICE, HERE)
    b = lists("ALLOW_WRITE = */192.0.2.0/24\n")
    assert b.verify("WRITE", ALICE, HERE) and not b.verify("WRITE", ALICE, THERE)
    c = lists("DENY_READ = 198.51.100.*\n")
    assert c.verify("READ", ANON, HERE) and not c.verify("READ", ANON, THERE)
    d = lists("ALLOW_WRITE = alice@*/192.0.2.7\n")
    assert d.verify("WRITE", ALICE, HERE)
    assert not d.verify("WRITE", "bob@x", HERE) and not d.verify("WRITE", ALICE, THERE)


def test_the_subsystems_own_list_replaces_the_general_one():
    text = "ALLOW_WRITE = alice@*\nALLOW_WRITE_COLLECTOR = bob@*\nSTARTD.ALLOW_WRITE = carol@*\n"
    schedd, collector, startd = (lists(text, s) for s in ("SCHEDD", "COLLECTOR", "STARTD"))
    assert schedd.verify("WRITE", ALICE, HERE) and not schedd.verify("WRITE", "bob@x", HERE)
    assert collector.verify("WRITE", "bob@x", HERE)
    assert not collector.verify("WRITE", ALICE, HERE)  # replaced, not merged
    assert startd.verify("WRITE", "carol@x", HERE) and not startd.verify("WRITE", ALICE, HERE)


def test_the_configuration_chain():
    # ADVERTISE_STARTD takes DAEMON's list, then DEFAULT's.
    a = lists("ALLOW_DAEMON = dave@*\n")
    assert a.verify("ADVERTISE_STARTD", "dave@x", HERE)
    assert not a.verify("ADVERTISE_STARTD", CONDOR, HERE)
    b = lists("ALLOW_ADVERTISE_MASTER = erin@*\n")
    assert b.verify("ADVERTISE_MASTER", "erin@x", HERE)
    assert not b.verify("ADVERTISE_MASTER", CONDOR, HERE)  # its own list, not DAEMON's
    # An empty value is no value: the chain goes on (here to condorx's default).
    c = lists("ALLOW_DAEMON =\n")
    assert c.verify("DAEMON", CONDOR, HERE)
    # LEGACY_ALLOW_SEMANTICS puts WRITE under DAEMON (HTCondor's host-based security).
    d = lists("LEGACY_ALLOW_SEMANTICS = true\nALLOW_WRITE = fay@*\nALLOW_DEFAULT = x@*\n")
    assert d.verify("DAEMON", "condor@x", HERE)  # DAEMON's own default comes first
    e = lists("LEGACY_ALLOW_SEMANTICS = true\nALLOW_WRITE = fay@*\nALLOW_CONFIG = gus@*\n")
    assert e.verify("CONFIG", "gus@x", HERE) and not e.verify("CONFIG", "fay@x", HERE)
