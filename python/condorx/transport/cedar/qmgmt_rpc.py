"""The queue-management RPCs HTCondor's clients send the schedd, by number
(condor_qmgr.h), as `cedar.qmgmt` answers them."""

from __future__ import annotations

from enum import IntEnum


class Rpc(IntEnum):
    InitializeConnection = 10001
    NewCluster = 10002
    NewProc = 10003
    DestroyCluster = 10004
    DestroyProc = 10005
    SetAttribute = 10006
    CommitTransactionNoFlags = 10007
    GetAttributeFloat = 10008
    GetAttributeInt = 10009
    GetAttributeString = 10010
    GetAttributeExpr = 10011
    DeleteAttribute = 10012
    GetNextJob = 10013
    GetJobAd = 10018
    GetJobByConstraint = 10019
    GetNextJobByConstraint = 10020
    SetAttributeByConstraint = 10021
    InitializeReadOnlyConnection = 10022
    BeginTransaction = 10023
    AbortTransaction = 10024
    GetAllJobsByConstraint = 10026
    SetAttribute2 = 10027
    CloseSocket = 10028
    SetEffectiveOwner = 10030
    CommitTransaction = 10031
    SetAttributeByConstraint2 = 10032
    SetAllowProtectedAttrChanges = 10035
    GetCapabilities = 10036
    SetJobFactory = 10037
    SendMaterializeData = 10039
    SendJobQueueAd = 10040
