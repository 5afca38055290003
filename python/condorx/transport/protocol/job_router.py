"""The job router's requests."""

from __future__ import annotations

from condorx.record import record
from condorx.transport.protocol.message import Message, Reply

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class DescribeRoutes(Message):
    """The routing table as loaded, with each route's failures and throttling."""

    command = "routes"


@record(frozen=True)
class PollNow(Message):
    """Route now, not at the next JOB_ROUTER_POLLING_PERIOD."""

    command = "poll"


@record(frozen=True)
class Routes(Reply):
    """Each route: name, grid_resource, max_jobs, max_idle, failure_rate, throttled; and
    the errors of the table as loaded."""

    routes: list[Any]
    errors: list[Any]
