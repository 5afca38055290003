"""The routed copy of a job (Job Router manual): the original's ad, turned into a job of the
route's TargetUniverse (the grid universe, 9, unless the route says otherwise) for its
GridResource, then edited by the route's attribute operations in this order:

- `copy_A = "B"`: B takes A's expression, as the original had it;
- `delete_A`: A is removed (whatever value the entry gives it);
- `set_A = expr`: A is set to the expression, unevaluated (the schedd evaluates it);
- `eval_set_A = expr`: A is set to the expression's value, evaluated by the router
  with the route as MY and the original job as TARGET.
"""

from __future__ import annotations

from condorx.classad import ClassAd, Value
from condorx.daemons.job_router.table import Route


class TransformError(ValueError):
    pass


def routed_copy(job: ClassAd, route: Route) -> ClassAd:
    original = job.flatten()
    copy = original.copy()
    copy["JobUniverse"] = route.target_universe
    if route.grid_resource:
        copy["GridResource"] = route.grid_resource
    for op, attr, value in route.edits:
        if op == "copy_":
            if attr in original:
                copy[str(value)] = original.lookup(attr)
        elif op == "delete_":
            if attr in copy:
                del copy[attr]
        elif op == "set_":
            copy[attr] = value
        else:
            copy[attr] = _evaluated(route, attr, value, original)
    return copy


def sandboxing(route: Route, job: ClassAd, copy: ClassAd) -> bool:
    """Whether the copy is sandboxed (JobShouldBeSandboxed: its input files copied to the
    schedd's spool, its output staged back there and then to the original's output
    files); with UseSharedX509UserProxy, the copy's proxy is SharedX509UserProxy, which
    the seed allows only with sandboxing."""
    sandbox = route.evaluates("JobShouldBeSandboxed", job) is True
    if route.evaluates("UseSharedX509UserProxy", job) is True:
        proxy = route.evaluates("SharedX509UserProxy", job)
        if not isinstance(proxy, str) or not proxy:
            raise TransformError(
                f"route {route.name!r}: UseSharedX509UserProxy is true but"
                " SharedX509UserProxy names no file"
            )
        if not sandbox:
            raise TransformError(
                f"route {route.name!r}: a shared X509 proxy needs JobShouldBeSandboxed"
            )
        copy["X509UserProxy"] = proxy
    return sandbox


def _evaluated(route: Route, attr: str, expr: object, job: ClassAd) -> object:
    scope = route.ad.copy()
    scope["__eval_set"] = expr
    v = scope.eval("__eval_set", job)
    if v is Value.Error:
        raise TransformError(f"route {route.name!r}: eval_set_{attr} evaluates to error")
    return v
