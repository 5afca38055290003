"""Job attribute values with HTCondor's numbers: job states, universes, hold reason codes."""

from __future__ import annotations

import enum

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


class JobStatus(enum.IntEnum):
    IDLE = 1
    RUNNING = 2
    REMOVED = 3
    COMPLETED = 4
    HELD = 5
    TRANSFERRING_OUTPUT = 6
    SUSPENDED = 7

    @property
    def letter(self) -> str:
        """The letter condor_q prints in its ST column."""
        return _LETTERS[self]

    @classmethod
    def of(cls, ad: Any) -> JobStatus:
        """The status a job ad says it has (Idle when it says nothing that is a status)."""
        try:
            return cls(ad.get("JobStatus"))
        except ValueError:
            return cls.IDLE


_LETTERS = {
    JobStatus.IDLE: "I",
    JobStatus.RUNNING: "R",
    JobStatus.REMOVED: "X",
    JobStatus.COMPLETED: "C",
    JobStatus.HELD: "H",
    JobStatus.TRANSFERRING_OUTPUT: ">",
    JobStatus.SUSPENDED: "S",
}


class Universe(enum.IntEnum):
    STANDARD = 1
    VANILLA = 5
    SCHEDULER = 7
    GRID = 9
    JAVA = 10
    PARALLEL = 11
    LOCAL = 12
    VM = 13
    CONTAINER = 14


class HoldCode(enum.IntEnum):
    """HoldReasonCode values, numbered as HTCondor numbers them."""

    USER_REQUEST = 1
    GLOBUS_GRAM_ERROR = 2
    JOB_POLICY = 3
    CORRUPTED_CREDENTIAL = 4
    JOB_POLICY_UNDEFINED = 5
    FAILED_TO_CREATE_PROCESS = 6
    UNABLE_TO_OPEN_OUTPUT = 7
    UNABLE_TO_OPEN_INPUT = 8
    UNABLE_TO_OPEN_OUTPUT_STREAM = 9
    UNABLE_TO_OPEN_INPUT_STREAM = 10
    INVALID_TRANSFER_ACK = 11
    DOWNLOAD_FILE_ERROR = 12
    UPLOAD_FILE_ERROR = 13
    IWD_ERROR = 14
    SUBMITTED_ON_HOLD = 15
    SPOOLING_INPUT = 16
    JOB_SHADOW_MISMATCH = 17
    INVALID_TRANSFER_GO_AHEAD = 18
    HOOK_PREPARE_JOB_FAILURE = 19
    MISSED_DEFERRED_EXECUTION_TIME = 20
    STARTD_HELD_JOB = 21
    UNABLE_TO_INIT_USER_LOG = 22
    FAILED_TO_ACCESS_USER_ACCOUNT = 23
    NO_COMPATIBLE_SHADOW = 24
    INVALID_CRON_SETTINGS = 25
    SYSTEM_POLICY = 26
    SYSTEM_POLICY_UNDEFINED = 27
    MAX_TRANSFER_INPUT_SIZE_EXCEEDED = 32
    MAX_TRANSFER_OUTPUT_SIZE_EXCEEDED = 33
    JOB_OUT_OF_RESOURCES = 34
    INVALID_DOCKER_IMAGE = 35
    FAILED_TO_CHECKPOINT = 36


# Attributes a user may not change with condor_qedit: the schedd owns them.
PROTECTED = frozenset(
    name.lower()
    for name in (
        "ClusterId",
        "ProcId",
        "Owner",
        "User",
        "JobStatus",
        "QDate",
        "EnteredCurrentStatus",
        "LastJobStatus",
        "HoldReason",
        "HoldReasonCode",
        "HoldReasonSubCode",
        "NumHolds",
        "MyType",
        "TargetType",
        "GlobalJobId",
        # The job router's ties between an original and its copy: only the schedd sets
        # them (a user who could would reach another user's job through them).
        "Managed",
        "ManagedManager",
        "RoutedToJobId",
        "RoutedFromJobId",
        "RouteName",
        "RoutedBy",
        # A job factory's state and files (late materialization): the schedd's alone (a
        # user who could name the files would have the schedd read any file).
        "JobMaterializeNextProcId",
        "JobMaterializePaused",
        "JobMaterializeDigestFile",
        "JobMaterializeItemsFile",
        "JobMaterializeRowsFile",
    )
)


# A routed copy's own bookkeeping (job router), never taken from the original: the router
# leaves these out of the copy it submits, and a grid job's update out of its original.
NOT_COPIED = frozenset(
    n.lower()
    for n in (
        "Managed",
        "ManagedManager",
        "RoutedToJobId",
        "RoutedFromJobId",
        "RemoteHost",
        "NumJobStarts",
        "NumJobMatches",
        "JobCurrentStartDate",
        "JobStartDate",
        "LastJobStatus",
        "ReleaseReason",
    )
)
