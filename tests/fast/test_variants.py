"""What runs, and against what it is checked: the sample contract's variants and families (the probe's loader,
which imports no torch), and the cross-check of any output shape."""

import ast
import sys
import types

import numpy as np
import pytest

from inspector.collect.crosscheck import compare, cross_check
from inspector.probe import sample
from inspector.raw import RawRecord


def module(source, name="variants_sample"):
    m = types.ModuleType(name)
    m.__file__ = f"/nowhere/{name}.py"
    exec(compile(source, m.__file__, "exec"), m.__dict__)
    return m


SOURCE = '''
import functools
from math import fsum as imported


def population(n, rng):
    return rng.random((n, 3))


def fitness_python(individual):
    return sum(individual)


def helper(population, scale):
    return population.sum(axis=1) * scale


class Scorer:
    def __call__(self, population):
        return population.sum(axis=1)


fitness_numpy = functools.partial(helper, scale=1.0)
fitness_numpy_object = Scorer()
fitness_torch = lambda population: population.sum(dim=1)
fitness_python_imported = imported
fitness_jax = helper
fitness_numpy_table = 3
'''


def test_any_callable_named_like_a_variant_is_one_and_the_rest_say_why_not():
    m = module(SOURCE)
    found, ignored = sample.functions(m)
    assert [(name, kind) for name, kind, _ in found] == [
        ("fitness_python", "python"), ("fitness_numpy", "numpy"), ("fitness_numpy_object", "numpy"),
        ("fitness_torch", "torch"), ("fitness_python_imported", "python")]
    codes = {name: code for name, _, code in found}
    assert codes["fitness_numpy"].co_name == "helper" and codes["fitness_numpy_object"].co_name == "__call__"
    assert codes["fitness_torch"].co_name == "<lambda>" and codes["fitness_python_imported"] is None  # a builtin
    assert ignored == [("fitness_jax", "'jax' is not a kind of variant (fitness_python*, fitness_numpy*, "
                                       "fitness_torch*)"), ("fitness_numpy_table", "not callable (a int)")]


def test_families_by_suffix_a_lone_suffix_joins_the_unsuffixed_and_the_sample_can_say_otherwise():
    names = ["fitness_python", "fitness_numpy", "fitness_numpy_apply", "fitness_python_g4", "fitness_numpy_g4",
             "fitness_torch_g5"]
    m = module("x = 1\n")
    assert sample.families(names, m) == {"fitness_python": "", "fitness_numpy": "", "fitness_numpy_apply": "",
                                         "fitness_python_g4": "g4", "fitness_numpy_g4": "g4", "fitness_torch_g5": ""}
    m.FAMILIES = {"fitness_numpy_apply": "apply"}
    assert sample.families(names, m)["fitness_numpy_apply"] == "apply"
    only_suffixed = ["fitness_numpy_g5", "fitness_torch_g6"]
    assert sample.families(only_suffixed, m) == {"fitness_numpy_g5": "g5", "fitness_torch_g6": "g6"}


def test_each_variant_is_checked_within_its_family_and_a_compiled_one_against_its_own_eager(tmp_path):
    rows = np.arange(6.0)
    outputs = {"python_a": rows, "numpy_a": rows, "numpy_a-compiled-cpu": rows + 1,
               "python_b": rows * 2, "numpy_b": rows * 2, "numpy_b-compiled-cpu": rows * 2}
    record = {"sample": {"population": 6}, "variants": []}
    for vid, out in outputs.items():
        np.save(tmp_path / f"{vid}.npy", out)
        kind, family = vid.split("_")[0], vid.split("_")[1].split("-")[0]
        record["variants"].append({"id": vid, "function": f"fitness_{vid.split('-')[0]}", "kind": kind,
                                   "compiled": "compiled" in vid, "family": family, "status": "ok"})
    checked = cross_check(RawRecord.from_json(record), tmp_path)
    got = {v.id: (v.checked_against, v.matches_reference) for v in checked.variants}
    assert got == {"python_a": (None, True), "numpy_a": ("python_a", True), "numpy_a-compiled-cpu": ("numpy_a", False),
                   "python_b": (None, True), "numpy_b": ("python_b", True), "numpy_b-compiled-cpu": ("numpy_b", True)}


def test_several_objectives_compare_elementwise_and_say_which_one_differs():
    expected = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, np.inf]])
    assert compare(expected, expected.copy()) == (True, None)
    got = expected.copy()
    got[1, 1] = 4.5
    assert compare(expected, got) == (False, "1 of 3 individuals differ (first: #1[1]: expected 4.0, got 4.5)")
    assert compare(expected, expected[:, :1])[1] == "returned shape (3, 1) where the reference has (3, 2)"
    assert compare(expected, expected * (1 + 1e-4), rtol=1e-3)[0] and not compare(expected, expected * (1 + 1e-4))[0]


def test_a_wrong_shape_fails_that_variant_with_the_shapes_it_may_have(tmp_path):
    np.save(tmp_path / "numpy.npy", np.zeros((4, 2, 2)))
    record = {"sample": {"population": 4}, "variants": [
        {"id": "numpy", "function": "fitness_numpy", "kind": "numpy", "compiled": False, "status": "ok"}]}
    (v,) = cross_check(RawRecord.from_json(record), tmp_path).variants
    assert v.matches_reference is False and v.mismatch.startswith(
        "returned shape (4, 2, 2), expected (4,) or (4, k): one value, or one row of k objectives")


def test_the_loader_puts_the_samples_folder_on_the_path_for_its_own_modules(tmp_path):
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "fit.py").write_text("def f(x):\n    return x.sum(axis=1)\n")
    (tmp_path / "s.py").write_text("from helpers.fit import f\n\n"
                                   "def population(n, rng):\n    return rng.random((n, 2))\n\nfitness_numpy = f\n")
    try:
        m = sample.load(str(tmp_path / "s.py"))
        (variant, *_), ignored = sample.variants(m)
        assert variant.code["file"] == str(tmp_path / "helpers" / "fit.py") and variant.code["name"] == "f"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("helpers.fit", None)
        sys.modules.pop("helpers", None)


def test_a_sample_is_imported_with_only_its_path_in_sys_argv(tmp_path):
    path = str(tmp_path / "argv_sample.py")
    (tmp_path / "argv_sample.py").write_text("import sys\n\nSEEN = list(sys.argv)\nSIZE = int(sys.argv[1]) if "
                                             "len(sys.argv) > 1 else 200\n\n\ndef population(n, rng):\n"
                                             "    return rng.random((n, 2))\n")
    before = list(sys.argv)
    try:
        m = sample.load(path)
        assert (m.SEEN, m.SIZE) == ([path], 200) and sys.argv == before  # as `python path`; then given back
    finally:
        sys.path.remove(str(tmp_path))


def test_a_file_without_population_is_not_imported_and_said_to_be_no_sample(tmp_path):
    (tmp_path / "prog.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\nprint('a whole program')\n")
    with pytest.raises(sample.SampleError) as e:
        sample.load(str(tmp_path / "prog.py"))
    assert str(e.value) == (f"{tmp_path}/prog.py is not a sample: it has no population(n, rng) function (a program? "
                            f"`inspector run {tmp_path}/prog.py` runs it as it is)")
    assert not (tmp_path / "ran").exists()


def test_what_a_source_says_of_population_without_running_it():
    def told(source):
        return sample.defines_population(ast.parse(source))
    for source in ("def population(n, rng): ...", "from helpers import population", "population = make",
                   "import population", "try:\n    from a import population\nexcept ImportError:\n    pass",
                   "for population in []: pass"):
        assert told(source) is True, source
    for source in ("def main():\n    population = 1\n    print(population)", "class P:\n    population = 1",
                   "if __name__ == '__main__':\n    population = init()", "'''no population(n, rng)'''",
                   "self.population = 1", "def f(population): ...", "[population for population in x]"):
        assert told(source) is False, source
    for source in ("from helpers import *", "globals()['population'] = f", "setattr(m, 'population', f)",
                   "def f():\n    global population", "def __getattr__(name): ...", "exec(code)",
                   "sys.modules[__name__].population = f"):
        assert told(source) is None, source
