"""The job router's requests."""

from __future__ import annotations

from dataclasses import dataclass

from condorx.protocol.message import Message


@dataclass(frozen=True)
class DescribeRoutes(Message):
    """The routing table as loaded, with each route's failures and throttling."""

    command = "routes"


@dataclass(frozen=True)
class PollNow(Message):
    """Route now, not at the next JOB_ROUTER_POLLING_PERIOD."""

    command = "poll"
