"""A rewrite inspector wrote, run in the probe that ran the variants (a ``RewriteTrial``): defined in a copy of the
sample's namespace, checked there against the user's code (``inspector.rewrite.check``), then tried as a fix is
(``inspector.probe.trials``): eager or compiled, or under numba's ``@njit``, timed in the rounds beside its variant.
The rewriter itself ran in inspector's process; here only its code runs (``inspector.rewrite`` needs numpy alone)."""

from __future__ import annotations

import importlib.util
import types
from collections.abc import Callable
from typing import Any, Optional

import numpy as np

from inspector.probe.messages import RewriteTrial
from inspector.probe.sample import Variant
from inspector.rewrite import Dialect, Rewrite, check, read_program
from inspector.rewrite.check import rewritten
from inspector.rewrite.codec import from_json, to_json


def numba_version() -> Optional[str]:
    """numba's version where this interpreter can import it, else None (without importing it)."""
    if importlib.util.find_spec("numba") is None:
        return None
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("numba")
    except PackageNotFoundError:
        return None


def prepared(spec: RewriteTrial, module: types.ModuleType, variant: Variant, sample: str, population: np.ndarray
             ) -> tuple[Variant, Callable[..., Any], Optional[dict[str, Any]]]:
    """(the variant the trial runs as, its function, its check as JSON or None): the rewrite's entry (under
    ``@njit`` with ``numba``), or with no code the variant's own Python function under ``@njit`` over the rows."""
    tolerance = spec.rtol or getattr(module, "TOLERANCE", None)  # --rtol, else the sample's
    if spec.code is None:
        return (Variant(spec.id or "", variant.function, "numpy", False, "cpu", family=variant.family),
                over_rows(getattr(module, variant.function), vars(module)), None)
    rewrite = from_json(Rewrite, spec.code.to_json())
    space = dict(vars(module))
    entry = rewritten(rewrite, space)
    if spec.numba:
        entry = jitted(rewrite, entry)
    kind = "numpy" if spec.numba else rewrite.dialect.value
    checked = None
    if spec.check_rows is not None:
        rows = population[:spec.check_rows] if spec.check_rows else population
        checked = to_json(check(rewrite, read_program(sample), vars(module), rows,
                                float(tolerance) if isinstance(tolerance, (int, float)) else None))
    as_variant = Variant(spec.id or "", rewrite.entry, kind, bool(spec.compiled), "cpu", family=variant.family)
    return as_variant, entry, checked


def jitted(rewrite: Rewrite, entry: Callable[..., Any]) -> Callable[..., Any]:
    """The NumPy rewrite's functions under ``@njit``, each calling the others' jitted versions."""
    import numba
    if rewrite.dialect is not Dialect.NUMPY:
        raise TypeError("numba runs the NumPy rewrite only")
    space: dict[str, Any] = entry.__globals__
    for renamed in rewrite.functions:
        if callable(space.get(renamed.new)):
            space[renamed.new] = numba.njit(space[renamed.new])
    found: Callable[..., Any] = space.get(rewrite.entry) or entry
    return found if found is not entry else numba.njit(entry)


def over_rows(fn: Callable[..., Any], namespace: dict[str, Any]) -> Callable[..., Any]:
    """``fn`` (a per-individual function) as it stands under ``@njit``, called on each row of the population in an
    ``@njit`` loop; the sample's other functions it calls jitted too (copies: the user's stay as they are)."""
    import numba
    space = dict(namespace)
    for name, value in namespace.items():
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            space[name] = numba.njit(types.FunctionType(value.__code__, space, name, value.__defaults__,
                                                        value.__closure__))
    one = space[fn.__name__] if fn.__name__ in space else numba.njit(fn)

    @numba.njit
    def rows(population: np.ndarray) -> np.ndarray:  # pragma: no cover (compiled by numba)
        out = np.empty(population.shape[0])
        for i in range(population.shape[0]):
            out[i] = one(population[i])
        return out
    return rows
