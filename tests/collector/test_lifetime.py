"""How long the collector keeps an ad: its ClassAdLifetime, else CLASSAD_LIFETIME. An ad
that sets none (HTCondor's Collector.advertise sends such ads) once lived 2 s, the
integer value of `undefined`."""

from __future__ import annotations

import trio

from condorx.classad import ClassAd
from condorx.daemons.collector.service import Collector
from condorx.language.config import Config
from condorx.transport import wire
from condorx.transport.peer import Peer
from condorx.transport.protocol.collector import Advertise

PEER = Peer("condor", "token", "test")


def _advertise(collector: Collector, *ads: dict[str, object]) -> None:
    collector.authorized = lambda level, peer: True  # the pool's identity, as a server grants
    request = Advertise(wire.pack_ads(ads))
    trio.run(collector.advertise, PEER, request, None)


def _kept_for(collector: Collector, name: str) -> float:
    entry = collector.ads["machine"][name]
    return entry.expires - entry.ad["LastHeardFrom"]


def test_an_ad_without_a_lifetime_lives_classad_lifetime():
    collector = Collector(Config.from_text("CLASSAD_LIFETIME = 1234\n"))
    _advertise(
        collector,
        {"MyType": "Machine", "Name": "plain"},
        {"MyType": "Machine", "Name": "own", "ClassAdLifetime": 60},
        {"MyType": "Machine", "Name": "odd", "ClassAdLifetime": wire.Expr("undefined")},
        {"MyType": "Machine", "Name": "bool", "ClassAdLifetime": True},
    )
    assert 1234 <= _kept_for(collector, "plain") < 1235
    assert 60 <= _kept_for(collector, "own") < 61
    assert 1234 <= _kept_for(collector, "odd") < 1235
    assert 1234 <= _kept_for(collector, "bool") < 1235
    assert isinstance(collector.ads["machine"]["plain"].ad, ClassAd)
