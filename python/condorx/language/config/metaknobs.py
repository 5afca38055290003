"""The configuration templates of ``use CATEGORY : NAME[(args)]`` (HTCondor's metaknobs).

Each template is configuration text read in place of the ``use`` line. Inside it
``$(1)``, ``$(2)``... are the template's arguments and ``$(N:default)`` supplies one that
was not given; ``$(0)`` is all of them. Names of categories and templates ignore case.
What each template sets was learned from HTCondor 25.14.1's reader.
"""

from __future__ import annotations

import re

TEMPLATES: dict[str, dict[str, str]] = {
    "ROLE": {
        "PERSONAL": """
CONDOR_HOST = 127.0.0.1
COLLECTOR_HOST = $(CONDOR_HOST):0
DAEMON_LIST = MASTER COLLECTOR NEGOTIATOR STARTD SCHEDD
RunBenchmarks = 0
""",
        "CENTRALMANAGER": "DAEMON_LIST = $(DAEMON_LIST) COLLECTOR NEGOTIATOR\n",
        "SUBMIT": "DAEMON_LIST = $(DAEMON_LIST) SCHEDD\n",
        "EXECUTE": "DAEMON_LIST = $(DAEMON_LIST) STARTD\n",
    },
    "POLICY": {
        "ALWAYS_RUN_JOBS": """
START = True
SUSPEND = False
CONTINUE = True
PREEMPT = False
KILL = False
WANT_SUSPEND = False
WANT_VACATE = True
MaxJobRetirementTime = 2147483647
NEGOTIATOR_CONSIDER_PREEMPTION = False
COLLECTOR_FORWARD_CLAIMED_PRIVATE_ADS = $(NEGOTIATOR_CONSIDER_PREEMPTION)
""",
        "LIMIT_JOB_RUNTIMES": """
MAX_JOB_RUNTIME = $(1:24*3600)
PREEMPT = (Activity == "Busy") && ((time() - EnteredCurrentActivity) > $(MAX_JOB_RUNTIME))
WANT_SUSPEND = False
MaxJobRetirementTime = $(MAX_JOB_RUNTIME)+120
""",
    },
    "SECURITY": {
        "STRONG": """
SEC_DEFAULT_AUTHENTICATION = required
SEC_DEFAULT_ENCRYPTION = required
SEC_DEFAULT_INTEGRITY = required
""",
        "WITH_AUTHENTICATION": """
SEC_DEFAULT_AUTHENTICATION = required
SEC_DEFAULT_INTEGRITY = required
""",
    },
    "FEATURE": {
        "PARTITIONABLESLOT": """
SLOT_TYPE_$(1:1) = $(2:100%)
SLOT_TYPE_$(1:1)_PARTITIONABLE = true
NUM_SLOTS_TYPE_$(1:1) = 1
""",
        "STATICSLOTS": """
NUM_SLOTS_TYPE_$(1:1)=$(2:$(NUM_CPUS))
SLOT_TYPE_$(1:1)_PARTITIONABLE=false
SLOT_TYPE_$(1:1)=$(3+:1/$(NUM_SLOTS_TYPE_$(1:1)))
SLOT_TYPE_$(1:1)=$(3+)
""",
        # The two below are HTCondor's, as its parameter table (param_info.in) writes them.
        "SCHEDDUSERMAPFILE": """
if ! $(2?)
  error : use FEATURE : ScheddUsermapFile requires 2 arguments: map_name, map_file
endif
SCHEDD_CLASSAD_USER_MAP_NAMES = $(SCHEDD_CLASSAD_USER_MAP_NAMES) $(1)
CLASSAD_USER_MAPFILE_$(1) = $(2)
""",
        "ASSIGNACCOUNTINGGROUP": """
if ! $(1?)
  error : use FEATURE : AssignAccountingGroup requires a map_file argument
endif
use FEATURE : ScheddUsermapFile(AssignAccountingGroup, $(1))
JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AssignAccountingGroup
JOB_TRANSFORM_AssignAccountingGroup @=end
  COPY Owner = AcctGroupUser
  COPY AcctGroup = RequestedAcctGroup
  EVALSET AcctGroup = usermap("AssignAccountingGroup",AcctGroupUser,AcctGroup)
  EVALSET AccountingGroup = join(".",AcctGroup,AcctGroupUser)
@end
# make sure that the user can't qedit these attributes once they have been set.
IMMUTABLE_JOB_ATTRS = $(IMMUTABLE_JOB_ATTRS) AcctGroup AcctGroupUser AccountingGroup
# optionally check that the user requested a valid group
if $(2:True)
  SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) CheckRequestedGroup
  SUBMIT_REQUIREMENT_CheckRequestedGroup = RequestedAcctGroup is undefined || \
RequestedAcctGroup == AcctGroup
  SUBMIT_REQUIREMENT_CheckRequestedGroup_REASON = strcat("Permission denied setting \
accounting_group to ", RequestedAcctGroup)
endif
# require that the user mapped into an accounting group
SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) AssignAccountingGroup
SUBMIT_REQUIREMENT_AssignAccountingGroup = AcctGroup isnt undefined && \
AccountingGroup isnt undefined
SUBMIT_REQUIREMENT_AssignAccountingGroup_REASON = strcat("Submit requirement \
AssignAccountingGroup not met - Could not map '", Owner, "' to an accounting group ", \
RequestedAcctGroup)
""",
    },
}

_ARG_HEAD = re.compile(r"\$\((\d+)([?+]?)")


def exists(category: str, name: str | None) -> bool:
    templates = TEMPLATES.get(category.upper())
    if templates is None:
        return False
    return name is None or name.split("(")[0].strip().upper() in templates


def split_items(spec: str) -> list[str]:
    """``A, B(1, 2)`` -> ``["A", "B(1, 2)"]``: commas inside parentheses stay."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for c in spec:
        if c == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        depth += (c == "(") - (c == ")")
        current.append(c)
    items.append("".join(current).strip())
    return [item for item in items if item]


def text_of(category: str, item: str) -> str | None:
    """The template text for ``NAME(args)``, arguments substituted; None if unknown."""
    name, _, argtext = item.partition("(")
    template = TEMPLATES.get(category.upper(), {}).get(name.strip().upper())
    if template is None:
        return None
    args = split_items(argtext.rsplit(")", 1)[0]) if argtext else []
    return _substitute(template, args)


def _substitute(text: str, args: list[str]) -> str:
    """``$(N)``, ``$(N?)`` (1 when given, else 0), ``$(N:default)``, ``$(N+)`` (the
    arguments from N on, joined by ", ") and ``$(N+:default)``; ``$(0)`` is all of
    them. A default may hold references of its own (``$(NUM_CPUS)``): its parentheses
    balance."""
    out: list[str] = []
    i = 0
    while i < len(text):
        m = _ARG_HEAD.match(text, i)
        if m is None:
            out.append(text[i])
            i += 1
            continue
        index, kind = int(m.group(1)), m.group(2)
        end, default = _default(text, m.end())
        if end is None:
            out.append(text[i])
            i += 1
            continue
        out.append(_argument(args, index, kind, default))
        i = end
    return "".join(out)


def _default(text: str, at: int) -> tuple[int | None, str | None]:
    """Where a reference that may have ``:default`` ends, and its default."""
    if at < len(text) and text[at] == ")":
        return at + 1, None
    if at >= len(text) or text[at] != ":":
        return None, None
    depth, j = 1, at + 1
    while j < len(text):
        depth += (text[j] == "(") - (text[j] == ")")
        if depth == 0:
            return j + 1, text[at + 1 : j]
        j += 1
    return None, None


def _argument(args: list[str], index: int, kind: str, default: str | None) -> str:
    if index == 0:
        return ", ".join(args)
    given = args[index - 1] if index <= len(args) else None
    if kind == "?":
        return "1" if given else "0"
    if kind == "+":
        rest = ", ".join(a for a in args[index - 1 :] if a)
        return rest or (default or "")
    return given if given else (default or "")
