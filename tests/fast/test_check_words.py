"""inspector check's contracts: the words, where they are written (comments, [tool.inspector]), torch ranges, and
lines followed by their label or code when they move. No record here."""

import textwrap

import pytest

from inspector.contracts.grammar import from_comments, from_pyproject, nearest_pyproject, parse_words
from inspector.contracts.source import locate, read
from inspector.contracts.versions import RangeError, parse_range

SOURCE = textwrap.dedent('''\
    import torch


    @torch.compile
    def fitness(pop):  # inspector: graphs=1 breaks<=0 recompiles<=1 faster-than=numpy:3x compile<=500ms
        # inspector: parallel vectorized
        value = (pop**2).sum(1)
        mask = pop.nonzero()  # inspector: allow eager
        total = value + 1  # inspector: label=hot simd torch>=2.2,<3
        return total
''')


def test_every_word_is_read_with_its_bound():
    words = parse_words("parallel serial vectorized library compiled simd not eager allow eager graphs=1 breaks<=2 "
                        "recompiles>=3 compile<30s compile<=500ms limit-hit no-limit-hit faster-than=numpy:2.5x "
                        "label=hot torch>=2.2,<2.14")
    assert not words.problems and words.allow_eager and words.label == "hot"
    assert [(t.word, t.op, t.bound, t.against) for t in words.terms if t.op] == [
        ("graphs", "==", 1, ""), ("breaks", "<=", 2, ""), ("recompiles", ">=", 3, ""), ("compile", "<", 30, ""),
        ("compile", "<=", 0.5, ""), ("faster-than", ">=", 2.5, "numpy")]
    assert [t.text for t in words.terms if t.word == "compiled"] == ["compiled", "not eager"]
    assert "2.13.0+cpu" in words.torch and "2.14.0" not in words.torch and "2.1.2" not in words.torch


@pytest.mark.parametrize("text, said", [
    ("vectorised", "vectorised: not a contract word"), ("graphs=one", "expected a whole number"),
    ("compile<=soon", "expected seconds"), ("faster-than=numpy", "expected faster-than=VARIANT:Nx"),
    ("torch>=two", "is not an operator"), ("torch>2.1.*", "takes == or !="),
])
def test_what_is_not_a_word_is_a_problem_never_a_guess(text, said):
    words = parse_words(text)
    assert not words.terms and len(words.problems) == 1 and said in words.problems[0]


def test_ranges_compare_releases_without_the_build():
    assert "2.13.0+cpu" in parse_range("==2.13.*") and "2.13.0" not in parse_range("!=2.13.*")
    assert "2.6.0a0+git1234" in parse_range(">=2.6") and "2.5.1" in parse_range(">=2.5,<2.6")
    assert "nightly" not in parse_range(">=2.1")
    with pytest.raises(RangeError):
        parse_range(">=2.1,")


def test_comments_promise_of_their_line_the_line_below_or_their_function(tmp_path):
    path = tmp_path / "mod.py"
    contracts, problems = from_comments(path, SOURCE)
    assert problems == []
    function, lines, labelled = contracts
    assert (function.target.function, function.site.line, function.site.column) == ("fitness", 5, 1)
    assert [t.text for t in function.terms][:2] == ["graphs=1", "breaks<=0"]
    # a comment alone promises of the statement below it; a trailing one of its own
    assert (lines.target.statement.first, lines.site.column, [t.word for t in lines.terms]) == (
        7, 5, ["parallel", "vectorized"])
    assert labelled.target.label == "hot" and "2.1.2" not in labelled.torch and "2.13.0" in labelled.torch
    assert lines.target.allowed == {8}  # allow eager is no promise of its own: it marks its line


@pytest.mark.parametrize("line, said", [
    ("x = 1  # inspector: graphs=1", "a function's promise: write it on the def line"),
    ("def f():  # inspector: allow eager\n    return 1", "allow eager is a line's"),
    ("x = 1  # inspector: label=a\ny = 2  # inspector: label=a", "label=a marks 2 lines"),
    ("x = 1  # inspector: fast", "fast: not a contract word"),
    ("x = (1  # inspector: parallel", "not Python"),
])
def test_a_contract_that_cannot_be_used_is_a_problem_at_its_place(tmp_path, line, said):
    contracts, problems = from_comments(tmp_path / "mod.py", line + "\n")
    assert len(problems) == 1 and said in problems[0].text and problems[0].place.line >= 1


def test_the_nearest_pyproject_with_a_tool_inspector_table_holds_contracts_on_functions_and_labels(tmp_path):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent('''\
        [tool.inspector]
        [[tool.inspector.contract]]
        at = "pkg/mod.py:fitness"
        expect = ["graphs=1", "no-limit-hit"]
        torch = ">=2.5"

        [[tool.inspector.contract]]
        at = "pkg/mod.py@hot"
        expect = "simd"

        [[tool.inspector.contract]]
        at = "site-lib/solver.py:step"
        expect = "parallel"
    '''))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")  # no table: passed over
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE)
    found, problems = nearest_pyproject(tmp_path / "pkg" / "mod.py")
    assert found == tmp_path / "pyproject.toml" and problems == []
    contracts, problems = from_pyproject(found)
    assert problems == []
    function, labelled, library = contracts
    assert function.target.function == "fitness" and function.site.line == 3 and "2.4.1" not in function.torch
    assert labelled.target.statement.first == 9 and labelled.target.source is not None
    assert library.target.source is None and library.target.pattern == "site-lib/solver.py"


@pytest.mark.parametrize("table, said", [
    ('at = "pkg/mod.py:7"\nexpect = "parallel"', "a line number moves"),
    ('at = "pkg/mod.py:nothing"\nexpect = "graphs=1"', "defines no function nothing"),
    ('at = "pkg/mod.py@cold"\nexpect = "simd"', "no line of pkg/mod.py marked label=cold"),
    ('at = "pkg/mod.py@hot"\nexpect = "graphs=1"', "a labelled line takes line words"),
    ('at = "pkg/mod.py:fitness"\nexpect = "graphs=1"\nwhen = "always"', "no key 'when'"),
    ('at = "pkg/mod.py:fitness"', "needs at"),
    ('at = "pkg/mod.py:fitness"\nexpect = "graphs=1"\ntorch = "2.5"', "torch = '2.5'"),
])
def test_a_table_that_cannot_be_used_is_a_problem(tmp_path, table, said):
    (tmp_path / "pyproject.toml").write_text(f"[[tool.inspector.contract]]\n{table}\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE)
    contracts, problems = from_pyproject(tmp_path / "pyproject.toml")
    assert contracts == [] and any(said in p.text for p in problems), problems


def test_a_moved_line_is_found_by_its_label_or_its_code_never_its_number():
    now = read(SOURCE)
    before = read("# a header\n\n" + SOURCE.replace("  # inspector: allow eager", "").replace(
        "    # inspector: parallel vectorized\n", ""))
    statement = now.statement_at(7)  # value = (pop**2).sum(1)
    assert locate(statement, None, now, before) == 8  # two lines added above, the comment line gone
    hot = now.statement_at(9)
    renamed = read(SOURCE.replace("total = value + 1", "total = value + 2"))
    assert locate(hot, "hot", now, renamed) == 9  # changed code, followed by its label
    assert "no such line" in locate(hot, None, now, renamed)
    twice = read("def f(x):\n    y = x + 1\n    return y\n\n\ndef g(x):\n    y = x + 1\n    return y\n")
    mine = read("def f(x):\n    y = x + 1\n    return y\n\n\n\ndef g(x):\n    y = x + 1\n    return y\n")
    assert locate(mine.statement_at(8), None, mine, twice) == 7  # the same code, told apart by its function
    both = read("y = x + 1\ny = x + 1\n")
    assert "lines 1, 2" in locate(read("z = 0\ny = x + 1\n").statement_at(2), None, read("z = 0\ny = x + 1\n"), both)
