"""HTCondor's transform language: the rules of a schedd's JOB_TRANSFORM_<name> (and of
condor_transform_ads), which edit a job's ad as it is submitted.

    REQUIREMENTS  AcctGroup is undefined      # which ads the rules apply to
    tmp = $(MY.Owner)                         # a macro of the transform's own
    COPY    Owner = AcctGroupUser             # COPY, RENAME, DELETE (also by /regex/)
    SET     Foo = "bar"                       # the expression as written, macros expanded
    DEFAULT Foo = 1                           # SET, only when the ad has no Foo
    EVALSET AccountingGroup = join(".", AcctGroup, AcctGroupUser)   # its value
    EVALMACRO tmp2 = Owner                    # a macro set to a value

`statements` reads the text into a `Transform`; `apply` runs it on an ad and says which
attributes it changed. Both follow HTCondor's xform_utils.cpp (quirks noted where kept).
"""

from condorx.language.transform.apply import apply, matches, truth
from condorx.language.transform.statements import Transform, TransformError, parse

__all__ = ["Transform", "TransformError", "apply", "matches", "parse", "truth"]
