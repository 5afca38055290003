"""HTCondor's command numbers (condor_commands.h) and queue-management RPC numbers
(qmgmt_constants.h), as its clients send them."""

from __future__ import annotations

from enum import IntEnum


class Cmd(IntEnum):
    # collector updates
    UPDATE_STARTD_AD = 0
    UPDATE_SCHEDD_AD = 1
    UPDATE_MASTER_AD = 2
    UPDATE_SUBMITTOR_AD = 11
    UPDATE_COLLECTOR_AD = 19
    UPDATE_NEGOTIATOR_AD = 49
    UPDATE_AD_GENERIC = 58
    UPDATE_STARTD_AD_WITH_ACK = 60
    UPDATE_ACCOUNTING_AD = 77
    UPDATE_OWN_SUBMITTOR_AD = 80
    MERGE_STARTD_AD = 73
    INVALIDATE_STARTD_ADS = 13
    INVALIDATE_SCHEDD_ADS = 14
    INVALIDATE_MASTER_ADS = 15
    INVALIDATE_SUBMITTOR_ADS = 18
    INVALIDATE_COLLECTOR_ADS = 21
    INVALIDATE_NEGOTIATOR_ADS = 51
    INVALIDATE_ADS_GENERIC = 59
    INVALIDATE_ACCOUNTING_ADS = 79
    # collector queries
    QUERY_STARTD_ADS = 5
    QUERY_SCHEDD_ADS = 6
    QUERY_MASTER_ADS = 7
    QUERY_STARTD_PVT_ADS = 10
    QUERY_SUBMITTOR_ADS = 12
    QUERY_COLLECTOR_ADS = 20
    QUERY_LICENSE_ADS = 43
    QUERY_STORAGE_ADS = 46
    QUERY_ANY_ADS = 48
    QUERY_NEGOTIATOR_ADS = 50
    QUERY_MULTIPLE_ADS = 53
    QUERY_MULTIPLE_PVT_ADS = 54
    QUERY_HAD_ADS = 56
    QUERY_GRID_ADS = 71
    QUERY_GENERIC_ADS = 74
    QUERY_ACCOUNTING_ADS = 78
    # schedd
    RESCHEDULE = 421
    ACT_ON_JOBS = 478
    SPOOL_JOB_FILES_WITH_PERMS = 488
    TRANSFER_DATA_WITH_PERMS = 489
    QUERY_SCHEDD_HISTORY = 515
    QUERY_JOB_ADS = 516
    QUERY_JOB_ADS_WITH_AUTH = 519
    QMGMT_READ_CMD = 1111
    QMGMT_WRITE_CMD = 1112
    # daemon core
    DC_CONFIG_VAL = 60007
    DC_AUTHENTICATE = 60010
    DC_NOP = 60011
    DC_SEC_QUERY = 60040


# Each QUERY_* command and the collector ad types (MyType, lower case) it answers;
# an empty tuple is every type.
QUERY_TYPES: dict[int, tuple[str, ...]] = {
    Cmd.QUERY_STARTD_ADS: ("machine", "slot", "startd", "startdaemon"),
    Cmd.QUERY_STARTD_PVT_ADS: ("machineprivate",),
    Cmd.QUERY_SCHEDD_ADS: ("scheduler",),
    Cmd.QUERY_MASTER_ADS: ("daemonmaster",),
    Cmd.QUERY_SUBMITTOR_ADS: ("submitter",),
    Cmd.QUERY_COLLECTOR_ADS: ("collector",),
    Cmd.QUERY_LICENSE_ADS: ("license",),
    Cmd.QUERY_STORAGE_ADS: ("storage",),
    Cmd.QUERY_NEGOTIATOR_ADS: ("negotiator",),
    Cmd.QUERY_HAD_ADS: ("had",),
    Cmd.QUERY_GRID_ADS: ("grid",),
    Cmd.QUERY_ACCOUNTING_ADS: ("accounting",),
    Cmd.QUERY_ANY_ADS: (),
    Cmd.QUERY_GENERIC_ADS: (),
    Cmd.QUERY_MULTIPLE_ADS: (),
    Cmd.QUERY_MULTIPLE_PVT_ADS: (),
}


# Authentication method bits (condor_auth.h).
class AuthBit(IntEnum):
    CLAIMTOBE = 2
    FS = 4
    FS_REMOTE = 8
    KERBEROS = 64
    ANONYMOUS = 128
    SSL = 256
    PASSWORD = 512
    MUNGE = 1024
    TOKEN = 2048
    SCITOKENS = 4096


def method_bit(name: str) -> int:
    """A method's bit from its configured name (IDTOKENS, TOKENS and TOKEN are one)."""
    upper = name.strip().upper()
    if upper in ("IDTOKENS", "IDTOKEN", "TOKENS"):
        upper = "TOKEN"
    try:
        return int(AuthBit[upper])
    except KeyError:
        return 0
