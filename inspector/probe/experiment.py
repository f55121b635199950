"""The blog's experiment on a program's hot function, after the program (``inspector run``; stdlib, numpy, torch).

On the inputs one round of the program gave the function (``inspector.probe.hotspots``): the function as the
program ran it (per individual, or through ``np.apply_along_axis``, or on the whole population), then for a
per-individual function inspector's rewrite over the population in NumPy and in torch (``inspector.rewrite``; its
declines kept with their construct and line), each eager and compiled (``torch.compile`` on the CPU), and for a
function already over the population ``torch.compile`` on it as it stands (not where Dynamo would unroll a loop
over its rows: ``inspector.probe.unroll``) and its torch translation (``inspector.rewrite.port``, eager and
compiled, under the torch rewrite's ids), or, where it loops over its rows, its loop body written over the
population in NumPy and torch (``inspector.rewrite.rows``, then as a per-individual function's). A rewrite runs
only where its check
against the user's function on those inputs matched (``inspector.rewrite.check``, on CHECK_ROWS individuals at most);
every run's output is compared with the program's own. Where the program gave a list's individuals one at a time,
each run over the population makes the list an array at each call (``np.asarray``), as the call to copy does in the
program, and that conversion is timed alone too (``to_array``). One call of each first (a compiled run's compiles),
then alternating rounds (``inspector.probe.rounds.turn``) within the budget; random state, printing and the
program's objects are left as they were (the replay's ``_kept_state`` and ``_silenced``).
"""

from __future__ import annotations

import functools
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any, Optional

import numpy as np

from inspector import source
from inspector.probe import ours_left_out_of_collections, unroll
from inspector.probe.hotspots import Round, population
from inspector.probe.replay import _kept_state, _silenced
from inspector.probe.rounds import turn

CHECK_ROWS = 5_000  # individuals a rewrite is checked on (the first ones of the round)
ROUNDS = 3
MAX_FUNCTIONS = 2  # the hottest functions the experiment runs on
MIN_SHARE = 0.10  # of the run's wall time a function the experiment runs on holds at least
COMPILED = "-compiled-cpu"
MAX_ERROR = 4000  # characters of a run's error kept (whole, as a variant's: the renderers say it in one line)
TO_ARRAY = "to-array"  # the conversion of a population of lists, timed in the rounds beside the runs (not a run)


def run(rounds: dict[str, tuple[Any, Round]], order: list[str], compile: Callable[..., Any], budget_s: float,
        capture: Any = None) -> dict[str, dict[str, Any]]:
    """{function id: its ``experiment`` facts} for the hottest MAX_FUNCTIONS of ``order`` with a round kept;
    ``compile``: torch.compile as the program found it; ``capture``: the run's Capture (what compiles here is
    dropped)."""
    found: dict[str, dict[str, Any]] = {}
    chosen = [f for f in order if f in rounds][:MAX_FUNCTIONS]
    start = time.perf_counter()
    with _kept_state(), _silenced(), _in_process():
        for n, fid in enumerate(chosen):
            share = max(0.0, (budget_s - (time.perf_counter() - start)) / (len(chosen) - n))
            began = time.perf_counter()
            try:
                found[fid] = experiment(*rounds[fid], compile, share)
            except Exception as e:  # the program's facts are kept whatever the experiment does
                found[fid] = {"why": f"the experiment stopped ({type(e).__name__}: {e})"}
            found[fid]["seconds"] = time.perf_counter() - began
            if capture is not None and not capture.empty():
                capture.take()
    return found


def experiment(code: Any, kept: Round, compile: Callable[..., Any], budget_s: float) -> dict[str, Any]:
    """One function's experiment facts: the rewrites and their declines, and each run's first call, its
    agreement with the program's outputs, and its rounds."""
    fn = function_of(code)
    if fn is None:
        return {"why": "its function object was not found after the program (a closure or a method)"}
    try:
        inputs = population(kept)
    except ValueError as e:
        return {"why": f"its inputs cannot be rebuilt as one array ({e})"}
    extra = kept.extra or ()
    expected = _expected(kept)
    runs: dict[str, tuple[Callable[[], Any], dict[str, Any]]] = {"as-written": (_as_written(fn, kept, inputs),
                                                                                 {"id": "as-written"})}
    facts: dict[str, Any] = {"rows": int(inputs.shape[0]), "rewrites": []}
    listed = _listed(kept, inputs)
    unrolled = None
    if kept.kind == "population":
        unrolled = unroll.unrolls(fn, lambda n: inputs[:n], len(inputs), extra)
        if unrolled is None:
            compiled = compile(fn)
            runs["compiled-cpu"] = (lambda: compiled(inputs, *extra), {"id": "compiled-cpu", "compiled": True})
        _ported(fn, code, kept, inputs, compile, runs, facts)
    else:
        _rewrites(fn, code, kept, inputs, listed, compile, runs, facts)
    if listed is not None and len(runs) > 1:  # the conversion alone, timed in the same rounds
        runs[TO_ARRAY] = (functools.partial(np.asarray, listed), {"id": TO_ARRAY})
    timed = _timed(runs, expected, budget_s)
    facts["runs"] = [r for r in timed if r["id"] != TO_ARRAY] + (
        [{"id": "compiled-cpu", "compiled": True, "error": unrolled}] if unrolled else [])
    conversion = [x["median_s"] for r in timed if r["id"] == TO_ARRAY for x in r.get("rounds", []) if "median_s" in x]
    if conversion:
        facts["to_array"] = {"median_s": statistics.median(conversion), "min_s": min(conversion),
                             "max_s": max(conversion), "runs": len(conversion)}
    return facts


def _listed(kept: Round, inputs: np.ndarray) -> Optional[list[Any]]:
    """The population as the program held it where it is a list given one individual at a time (of lists, of tuples,
    of arrays each of its own, DEAP's ndarray ``Individual``s among them): the call to copy makes it an array at each
    call (``np.asarray``), and so does each run over the population here (the conversion is also timed alone:
    ``to_array``). None where it is an array already: a function over the population, ``np.apply_along_axis``'s, views
    (a 2-D array's rows)."""
    if kept.kind == "population" or kept.via == "apply_along_axis":
        return None
    if kept.sequence != "array":
        rows: list[Any] = inputs.tolist()
        return rows
    if kept.row_type:
        return [row.view(kept.row_type) for row in inputs]
    return None if kept.rows_of_one else [row.copy() for row in inputs]


def function_of(code: Any) -> Optional[Callable[..., Any]]:
    """The program's function whose code is ``code`` (a module-level function: its module still holds it)."""
    name: str = code.co_name
    for found in gc.get_referrers(code):
        if getattr(found, "__code__", None) is code and callable(found) and found.__globals__.get(name) is found:
            function: Callable[..., Any] = found
            return function
    return None


def _as_written(fn: Callable[..., Any], kept: Round, inputs: np.ndarray) -> Callable[[], Any]:
    """The function as the program ran it on the round's inputs: on the population, through ``np.apply_along_axis``,
    or on each individual as the program held it (a list of its own: what the function does to one is not seen by
    the other runs), else on each row of the array."""
    extra = kept.extra or ()
    if kept.kind == "population":
        return lambda: fn(inputs, *extra)
    if kept.via == "apply_along_axis" and not extra:
        return lambda: np.apply_along_axis(fn, 1, inputs)
    listed = _listed(kept, inputs)
    rows = listed if listed is not None else list(inputs)
    return lambda: [fn(row, *extra) for row in rows]


def _rewrites(fn: Callable[..., Any], code: Any, kept: Round, inputs: np.ndarray, listed: Optional[list[Any]],
              compile: Callable[..., Any], runs: dict[str, tuple[Callable[[], Any], dict[str, Any]]],
              facts: dict[str, Any], program: Any = None) -> None:
    """The rewrites in NumPy and torch (each checked first), their eager and compiled runs added to ``runs``, each on
    ``inputs``, or made an array from ``listed`` (the rows as the program had them) at each call. ``program``: the
    program as the rewriter reads it (None: its file, read here), where a population function's row loop is a
    per-individual function (``_unlooped``): its rewrites are called on the population in its place, with no numba
    run of its own."""
    from inspector.rewrite import Declined, Dialect, Row, check, vectorize
    from inspector.rewrite.check import converted, rewritten
    from inspector.rewrite.codec import to_json
    from inspector.probe.rewritten import jitted, not_compiled, numba_version, over_rows
    program = program or _program(code, facts)
    if program is None:
        return
    whole = kept.kind == "population"
    row = Row.ARRAY if whole or kept.sequence == "array" else Row.LIST

    def given(dialect: Dialect) -> Callable[[], Any]:
        if listed is None:
            data = converted(inputs, dialect)
            return lambda: data
        return lambda: converted(np.asarray(listed), dialect)
    for dialect in (Dialect.NUMPY, Dialect.TORCH):
        rid = dialect.value
        written = vectorize(program, code.co_name, dialect, row, suffix=dialect.value)
        if isinstance(written, Declined):
            facts["rewrites"].append({"id": rid, "target": code.co_name, "kind": "vectorized",
                                      "dialect": dialect.value, "row": row.value, "declined": [to_json(written)]})
            continue
        checked = check(written, program, fn.__globals__, inputs[:CHECK_ROWS])
        facts["rewrites"].append(_called(dict(to_json(written), id=rid, check=to_json(checked)), kept,
                                         population_call_site if whole else call_site, code.co_name, written.entry,
                                         dialect.value))
        if checked.verdict.value != "matched":
            continue
        entry = rewritten(written, fn.__globals__)
        _eager_and_compiled(rid, entry, given(dialect), (), compile, runs,
                            not_compiled(written, int(inputs.shape[1])) is None)
        if dialect is Dialect.NUMPY and numba_version() and not whole:
            runs[rid + "-numba"] = (_on(_numba(functools.partial(jitted, written, entry)), given(dialect)),
                                    {"id": rid + "-numba", "rewrite": rid, "compiled": True})
    if numba_version() and not kept.extra and not whole:
        runs["numba"] = (_on(_numba(functools.partial(over_rows, fn, fn.__globals__)), given(Dialect.NUMPY)),
                         {"id": "numba", "compiled": True})


def _called(made: dict[str, Any], kept: Round, site: Callable[[str, int, str, str, str], str], function: str,
            entry: str, dialect: str) -> dict[str, Any]:
    """A rewrite's facts, ``made``, with the change at the program's call site where the round has one (``site``:
    ``call_site`` or ``population_call_site``, the line calling ``entry`` in place of ``function``; "" where the
    line has no call to change)."""
    file, line, _ = kept.site or ("", 0, "")
    new = site(file, line, function, entry, dialect) if file else ""
    if new:
        made["changes"] = made.get("changes", []) + [
            {"kind": "call", "span": {"file": file, "first": line, "last": line}, "code": new}]
    return made


def _ported(fn: Callable[..., Any], code: Any, kept: Round, inputs: np.ndarray, compile: Callable[..., Any],
            runs: dict[str, tuple[Callable[[], Any], dict[str, Any]]], facts: dict[str, Any]) -> None:
    """A population function's torch translation (``inspector.rewrite.port``; checked first), its eager and
    compiled runs added to ``runs`` under the torch rewrite's ids; where the port declines a loop over the rows, the
    loop's rewrites (``_unlooped``)."""
    from inspector.rewrite import Declined
    from inspector.rewrite.check import converted, rewritten
    from inspector.rewrite.codec import to_json
    from inspector.rewrite.port import checked, port
    program = _program(code, facts)
    if program is None:
        return
    extra = tuple(kept.extra or ())
    written = port(program, code.co_name)
    if isinstance(written, Declined):
        if not extra and _unlooped(fn, code, kept, inputs, compile, runs, facts, program):
            return
        facts["rewrites"].append({"id": "torch", "target": code.co_name, "kind": "port", "dialect": "torch",
                                  "row": "population", "declined": [to_json(written)]})
        return
    entry = rewritten(written, fn.__globals__)
    result = checked(written, fn, entry, inputs[:CHECK_ROWS], extra)
    facts["rewrites"].append(_called(dict(to_json(written), id="torch", check=to_json(result)), kept,
                                     population_call_site, code.co_name, written.entry, "torch"))
    if result.verdict.value == "matched":
        data = converted(inputs, written.dialect)
        _eager_and_compiled("torch", entry, lambda: data, extra, compile, runs)


def _unlooped(fn: Callable[..., Any], code: Any, kept: Round, inputs: np.ndarray, compile: Callable[..., Any],
              runs: dict[str, tuple[Callable[[], Any], dict[str, Any]]], facts: dict[str, Any], program: Any) -> bool:
    """A population function that loops over its rows (``inspector.rewrite.rows``), written over the whole
    population in NumPy and torch as its loop body would be per individual (``_rewrites``), each checked against
    that body and (its runs) against the program's outputs; False where the function is not such a loop."""
    from inspector.rewrite.rows import per_row
    rows = per_row(program, code.co_name)
    if rows is None:
        return False
    _rewrites(fn, code, kept, inputs, None, compile, runs, facts, rows)
    return True


def _program(code: Any, facts: dict[str, Any]) -> Any:
    """The program of ``code``'s file as the rewriter reads it (None: it could not be read, ``facts`` say why)."""
    from inspector.rewrite import read_program
    try:
        return read_program(code.co_filename)
    except (OSError, SyntaxError, UnicodeDecodeError) as e:
        facts["why"] = f"its file could not be read for a rewrite ({type(e).__name__}: {e})"
        return None


def _eager_and_compiled(rid: str, entry: Callable[..., Any], data: Callable[[], Any], extra: tuple[Any, ...],
                        compile: Callable[..., Any], runs: dict[str, tuple[Callable[[], Any], dict[str, Any]]],
                        compiled_too: bool = True) -> None:
    """A checked rewrite's runs on what ``data()`` gives at each call: eager (``rid``) and under ``compile`` (``rid``
    + COMPILED, unless not ``compiled_too``: the rewrite's notes say why)."""
    runs[rid] = (_on(entry, data, extra), {"id": rid, "rewrite": rid})
    if compiled_too:
        runs[rid + COMPILED] = (_on(compile(entry), data, extra), {"id": rid + COMPILED, "rewrite": rid,
                                                                    "compiled": True})


def _on(call: Callable[..., Any], data: Callable[[], Any], extra: tuple[Any, ...] = ()) -> Callable[[], Any]:
    """A run: ``call`` on what ``data()`` gives at each call."""
    return lambda: call(data(), *extra)


def population_call_site(file: str, line: int, function: str, entry: str, dialect: str = "torch") -> str:
    """The program's line that called ``function`` on the population, calling its rewrite ``entry`` instead (in
    torch: the population as a tensor, the result back as NumPy); "" where the line has no such call."""
    import ast
    text, nodes = _line(file, line)
    source = text.strip()
    for node in nodes:
        if isinstance(node, ast.Call) and _named(node.func) == function and node.args:
            old = ast.get_source_segment(source, node) or ""
            first = ast.get_source_segment(source, node.args[0]) or ""
            rest = "".join(", " + (ast.get_source_segment(source, a) or "") for a in [*node.args[1:], *node.keywords])
            call = (f"{entry}(torch.from_numpy({first}){rest}).numpy()" if dialect == "torch" else
                    f"{entry}({first}{rest})")
            return text.replace(old, call, 1) if old and first else ""
    return ""


def call_site(file: str, line: int, function: str, entry: str, dialect: str) -> str:
    """The program's line that called ``function`` per individual, calling ``entry`` once on the population
    instead: a comprehension over the population, ``map`` (in ``list``) or ``np.apply_along_axis`` replaced by
    ``entry(np.asarray(population))`` (``torch.from_numpy`` around it for torch); "" where the line is not one of
    those (a ``for`` loop: the call goes where the loop was)."""
    import ast
    text, nodes = _line(file, line)
    for node in nodes:
        over = _over(node, function)
        if over is None:
            continue
        population = ast.get_source_segment(text.strip(), over) or ""
        array = population if isinstance(node, ast.Call) and _named(node.func) == "apply_along_axis" else \
            f"np.asarray({population})"
        if dialect == "torch":
            array = f"torch.from_numpy({array})"
        old = ast.get_source_segment(text.strip(), node) or ""
        return text.replace(old, f"{entry}({array})", 1) if old else ""
    return ""


def _line(file: str, line: int) -> tuple[str, list[Any]]:
    """A line of the program (without its newline) and the nodes of its statement ([] where it does not parse on its
    own)."""
    import ast
    text = source.line(file, line)
    try:
        return text, list(ast.walk(ast.parse(text.strip())))
    except SyntaxError:
        return text, []


def _over(node: Any, function: str) -> Any:
    """The population a comprehension, ``map`` (or ``list(map(...))``) or ``np.apply_along_axis`` hands
    ``function`` one individual at a time; None for anything else."""
    import ast
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        loop, call = node.generators[0], node.elt
        if isinstance(call, ast.Call) and _named(call.func) == function and call.args and \
                isinstance(call.args[0], ast.Name) and isinstance(loop.target, ast.Name) and \
                call.args[0].id == loop.target.id and not loop.ifs:
            return loop.iter
    if isinstance(node, ast.Call):
        name = _named(node.func)
        if name == "list" and len(node.args) == 1:
            return _over(node.args[0], function)
        if name == "map" and len(node.args) == 2 and _named(node.args[0]) == function:
            return node.args[1]
        if name == "apply_along_axis" and len(node.args) == 3 and _named(node.args[0]) == function:
            return node.args[2]
    return None


def _named(node: Any) -> str:
    import ast
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _numba(make: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    """numba's ``@njit`` version ``make`` gives (numba compiles at the first call: its error is the run's), or a
    callable raising what making it raised."""
    try:
        return make()
    except Exception as e:
        error = e

        def failed(*args: Any) -> Any:
            raise error
        return failed


def _expected(kept: Round) -> Optional[np.ndarray]:
    """The program's own outputs of the round as one array (None where they are not numbers)."""
    try:
        values = kept.outputs[0] if kept.kind == "population" else kept.outputs
        found = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return found.reshape(len(found), -1)[:, 0] if found.ndim == 2 and found.shape[1] == 1 else found


def _timed(runs: dict[str, tuple[Callable[[], Any], dict[str, Any]]], expected: Optional[np.ndarray],
           budget_s: float) -> list[dict[str, Any]]:
    """Each run's facts: its first call (and its compile), whether it gave the program's outputs, then its
    rounds, the runs taking turns in alternating order within ``budget_s``, what the garbage collector tracked before
    them frozen (``ours_left_out_of_collections``): torch's objects and the compiles', scanned by a full collection
    a run's allocations trigger, made the function as written take 18x its time in one round of three runs."""
    start = time.perf_counter()
    facts = {rid: dict(given) for rid, (_, given) in runs.items()}
    live: dict[str, Callable[[], Any]] = {}
    for rid, (call, _) in runs.items():
        began = time.perf_counter()
        try:
            got = call()
        except Exception as e:
            facts[rid]["error"] = f"{type(e).__name__}: {e}"[:MAX_ERROR]  # (numba's says what failed after line 1)
            continue
        facts[rid]["first_call_s"] = time.perf_counter() - began
        facts[rid].update(_agrees(got, expected) if rid != TO_ARRAY else {})
        live[rid] = call
    slowest = max((facts[r]["first_call_s"] for r in live if not facts[r].get("compiled")), default=0.0)
    start, left = time.perf_counter(), budget_s  # the rounds' budget: the first calls (compiles) are apart
    rounds = min(ROUNDS, int(left / (3 * max(slowest, 1e-6) * max(1, len(live))))) if live else 0
    if rounds < 1 and live:
        rounds = 1  # one round always: the figures the page gives need it
    per_turn = max(slowest, (budget_s - (time.perf_counter() - start)) / max(1, rounds * len(live)))
    ids = list(live)
    with ours_left_out_of_collections():
        for r in range(rounds):
            order = ids if r % 2 == 0 else ids[::-1]
            for rid in order:
                facts[rid].setdefault("rounds", []).append(dict(turn(live[rid], _nothing, per_turn), round=r))
    return list(facts.values())


def _agrees(got: Any, expected: Optional[np.ndarray]) -> dict[str, Any]:
    """{matches, mismatch}: a run's output against the program's own outputs (NaN and inf in the same places)."""
    from inspector.rewrite.check import as_array
    from inspector.tolerance import close
    if expected is None:
        return {}
    try:
        values = as_array(got).astype(np.float64)
        values = values.reshape(len(values), -1)[:, 0] if values.ndim == 2 and values.shape[1] == 1 else values
    except (TypeError, ValueError) as e:
        return {"matches": False, "mismatch": f"not numbers ({e})"}
    if values.shape != expected.shape:
        return {"matches": False, "mismatch": f"shape {values.shape}, the program's {expected.shape}"}
    ok = np.asarray(close(expected, values))
    ok = np.asarray(ok.reshape(len(ok), -1).all(axis=1)) if ok.ndim > 1 else ok
    if bool(np.all(ok)):
        return {"matches": True}
    first = int(np.flatnonzero(~ok)[0])
    return {"matches": False, "mismatch": f"individual {first}: {values[first].tolist()!r}, the program got "
                                          f"{expected[first].tolist()!r} ({int((~ok).sum())} differ)"}


def _nothing() -> None:
    pass


def _in_process() -> Any:
    """Inductor compiling in this thread: at the interpreter's exit its pools take no more work."""
    import contextlib
    try:
        from torch._inductor import config
    except ImportError:
        return contextlib.nullcontext()
    return config.patch(compile_threads=1)
