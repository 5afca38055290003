"""The master's CEDAR commands: `htcondor2.send_command` (condor_off, condor_on,
condor_restart and condor_reconfig of HTCondor's own tools), served by condorx's Off,
On, Restart and Reconfig.

Each is a command number and, for those aimed at one daemon, its name (HTCondor's
subsystem name: SCHEDD, STARTD ...); nothing is answered.
"""

from __future__ import annotations

from condorx.transport.cedar.face import Call, CedarCommand
from condorx.transport.protocol.master import Off, On, Reconfig, Restart
from condorx.transport.protocol.message import Message

DC_OFF_GRACEFUL, DC_OFF_FAST, DC_OFF_PEACEFUL, DC_OFF_FORCE = 60005, 60006, 60015, 60042
DAEMONS_OFF, DAEMONS_OFF_FAST, DAEMONS_OFF_PEACEFUL = 454, 461, 484
DAEMON_OFF, DAEMON_OFF_FAST, DAEMON_ON, DAEMONS_ON = 467, 468, 469, 483
RESTART, RESTART_PEACEFUL = 453, 485
DC_RECONFIG, DC_RECONFIG_FULL = 60004, 60012

# command -> (the request it makes, given the named daemon or None)
_WHOLE = {
    DC_OFF_GRACEFUL: lambda d: Off(master=True),
    DC_OFF_FAST: lambda d: Off(master=True, fast=True),
    DC_OFF_FORCE: lambda d: Off(master=True, fast=True),
    DC_OFF_PEACEFUL: lambda d: Off(master=True, peaceful=True),
    DAEMONS_OFF: lambda d: Off(),
    DAEMONS_OFF_FAST: lambda d: Off(fast=True),
    DAEMONS_OFF_PEACEFUL: lambda d: Off(peaceful=True),
    DAEMONS_ON: lambda d: On(),
    RESTART: lambda d: Restart(),
    RESTART_PEACEFUL: lambda d: Restart(),
    DC_RECONFIG: lambda d: Reconfig(),
    DC_RECONFIG_FULL: lambda d: Reconfig(),
}
_ONE = {
    DAEMON_OFF: lambda d: Off(daemons=[d]),
    DAEMON_OFF_FAST: lambda d: Off(daemons=[d], fast=True),
    DAEMON_ON: lambda d: On(daemons=[d]),
}


async def _command(call: Call) -> bool:
    daemon: str | None = None
    if call.command in _ONE:
        daemon = (await call.payload()).text().lower()
        request: Message = _ONE[call.command](daemon)
    else:
        request = _WHOLE[call.command](None)
    await call.dispatch(request)
    return False


def commands() -> list[CedarCommand]:
    return [
        CedarCommand(number, "ADMINISTRATOR", _command, forced=True)
        for number in {**_WHOLE, **_ONE}
    ]
