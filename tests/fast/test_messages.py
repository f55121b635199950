"""The probes' wire (inspector.probe.messages): every kind of message, built from checked-in probe output, reads
back as it was written; collect and the API read a probe's stream through these types into the same record; a kind
this version does not know is counted into the record and shown in the parse statistics, never an error.

The probe here is a stand-in interpreter (a shell script given as ``python``, as a user gives another one) that
replays a checked-in record's messages and answers the parent's commands from it: no torch runs.
"""

import json
import sys
from dataclasses import fields

import pytest

from conftest import ROOT, record_path
from inspector import api
from inspector.collect import collect
from inspector.collect.progress import RunStarted
from inspector.probe import messages as m
from inspector.raw import RawRoundTiming, RawVariant
from inspector.record import load
from inspector.render.said import problem

HEADER_KEYS = ("id", "function", "kind", "compiled", "device", "preview", "family", "code")  # a header's variant
CHECKED = ("checked_against", "matches_reference", "mismatch")  # the parent's cross-check, not the probe's
UNKNOWN = m.Unknown("later", {"what": "a kind of a later version"})

REPLAY = """
import json, sys
from inspector.probe.messages import COMMANDS, Round, Trial, read
args = sys.argv[1:]
stream = json.load(open({stream!r}))
out = open(args[args.index("--results") + 1], "a")
def say(line):
    out.write(line + "\\n")
    out.flush()
for line in stream["warm"] if "--warm" in args else stream["lines"]:
    say(line)
for command in sys.stdin if "--rounds" in args or "--trials" in args else ():
    match read(command, COMMANDS):
        case Round(round=number):
            say(stream["rounds"][number])
        case Trial(id=fix):
            say(stream["trials"][fix])
"""


def sample_messages(record):
    """A sample probe's stream of ``record``: (its messages in order, {round: answer}, {trial id: answer})."""
    variants = record.variants
    header = m.Header(env=record.env, config=record.config, compile_options=record.compile_options,
                      sample=record.sample, variants=[RawVariant.from_json({k: v.to_json()[k] for k in HEADER_KEYS
                                                                           if k in v.to_json()}) for v in variants])
    lines = [header]
    for v in variants:
        lines.append(m.Start(id=v.id, time=1.7e9))
        lines += [m.Compiled(id=v.id, capture=v.capture)] if v.compiled and v.capture else []
        lines.append(m.VariantResult.of(v))
    rounds = record.rounds
    lines.append(m.Ready(ids=[v.id for v in variants if v.status == "ok"], warmup_s=rounds.warmup_s))
    answers = {n: m.RoundResult(round=n, variants={
        vid: RawRoundTiming.from_json({k: x for k, x in timings[n].to_json().items() if k != "round"})
        for vid, timings in rounds.variants.items()}) for n in range(rounds.rounds)}
    return lines, answers, {t.id: m.TrialAnswer.of(t) for t in record.trials}


def warm_messages(record):
    """A --warm probe's stream of ``record``: each compiled variant's compile with torch's caches warm."""
    return [m.WarmResult.from_json(dict({k: x for k, x in v.warm.to_json().items() if k != "processes"}, id=v.id))
            for v in record.variants if v.warm]


def program_messages(record):
    """A program probe's stream of ``record``: its first message, its end and its functions' replays."""
    program = record.program
    return [m.ProgramHeader(env=record.env, program=m.ProgramTarget(target=record.sample.path, module=program.module,
                                                                    file=record.sample.file, argv=program.argv)),
            m.ProgramEnd(exit=program.exit, wall_s=program.wall_s, functions=record.variants,
                         outside=program.outside),
            m.ProgramReplay(functions={v.id: v.run.replay for v in record.variants if v.run and v.run.replay})]


def every_message():
    """(message, the kinds its reader reads) for every kind of message and command, from checked-in records."""
    sample, program = load(record_path("2.13.0", "poly")), load(record_path("2.13.0", "ga"))
    lines, rounds, trials = sample_messages(sample)
    lines += warm_messages(sample) + [
        m.Internal(where="probe", error="KeyError: 'x'", detail="Traceback (most recent call last): ..."),
        m.Fatal(error="samples/x.py: population(10, rng) raised ValueError: no")]
    commands = [m.Round(round=n, budget_s=sample.rounds.budget_s) for n in rounds] + [
        kind.from_json(dict({k: x for k, x in t.to_json().items() if k in {f.name for f in fields(kind)}}, time=False))
        for t in sample.trials for kind in [m.RewriteTrial if t.rewrite else m.Trial]]
    written = {r.id: r for r in sample.rewrites or []}
    commands += [m.RewriteTrial(id="python-rewritten-numpy", variant="python", rewrite="python-rewritten-numpy",
                                code=written.get("python-rewritten-numpy"), check_rows=100)]
    return ([(x, m.PROBE) for x in [*lines, *rounds.values(), *trials.values()]]
            + [(x, m.PROGRAM) for x in program_messages(program)] + [(x, m.COMMANDS) for x in commands])


def test_every_kind_of_message_reads_back_as_it_was_written():
    built = every_message()
    assert {type(x) for x, _ in built} == {*m.PROBE.values(), *m.PROGRAM.values(), *m.COMMANDS.values()}
    for message, kinds in built:
        line = m.encode(message)
        assert json.loads(line)["type"] == message.TYPE
        assert m.read(line, kinds) == message and m.encode(m.read(line, kinds)) == line
    variant = load(record_path("2.13.0", "poly")).variants[2]  # a variant's result is the record's variant
    assert json.loads(m.encode(m.VariantResult.of(variant))) == {"type": "variant", **variant.to_json()}


@pytest.mark.parametrize("line, error", [
    ('{"type": "variant", "id": "a"', "not JSON"), ('["variant"]', "without a type"), ('{"id": "a"}', "without a type"),
])
def test_a_line_that_is_not_a_message_is_an_error_and_an_unknown_kind_is_not(line, error):
    with pytest.raises(m.MessageError, match=error):
        m.read(line, m.PROBE)
    assert m.read(m.encode(UNKNOWN), m.PROBE) == UNKNOWN
    end = m.ProgramEnd.from_json({"exit": 0})  # a message, but not one of this reader's kinds
    assert m.read(m.encode(end), m.PROBE) == m.Unknown("program", {"exit": 0})


def stand_in(tmp_path, lines, rounds=None, trials=None, warm=()):
    """An interpreter that replays ``lines`` (messages) as the probe, then answers Round and Trial commands from
    ``rounds`` {round: answer} and ``trials`` {id: answer}; as the --warm probe, it replays ``warm``."""
    stream = tmp_path / "stream.json"
    stream.write_text(json.dumps({"lines": [m.encode(x) for x in lines], "warm": [m.encode(x) for x in warm],
                                  "rounds": [m.encode(x) for _, x in sorted((rounds or {}).items())],
                                  "trials": {k: m.encode(x) for k, x in (trials or {}).items()}}))
    script = tmp_path / "replay.py"
    script.write_text(REPLAY.format(stream=str(stream)))
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    python.chmod(0o755)
    return python


def parse_row(report, artifact):
    return next((p for p in report.analysis.parse if p.artifact == artifact), None)


def test_collect_reads_a_probes_stream_into_the_same_record_and_counts_a_kind_it_does_not_know(tmp_path):
    fixture = load(record_path("2.13.0", "poly"))
    lines, rounds, trials = sample_messages(fixture)
    lines.insert(3, UNKNOWN)
    said, events = [], []
    python = stand_in(tmp_path, lines, rounds, trials, warm_messages(fixture))
    report = api.report(ROOT / "samples" / "poly.py", python=str(python), rounds=fixture.rounds.rounds,
                        rewrites=True, progress=said.append)  # fixes and rewrites tried (as the record's were), rounds
    record = report.record

    def probed(v, skip=("warm",)):  # what the probe said of a variant (the warm pass: what its process said)
        return {k: x for k, x in v.to_json().items() if k not in CHECKED + skip}
    assert [probed(v) for v in record.variants] == [probed(v) for v in fixture.variants]
    assert [v.warm and probed(v.warm, ("processes",)) for v in record.variants] == [
        v.warm and probed(v.warm, ("processes",)) for v in fixture.variants] and any(v.warm for v in record.variants)
    assert [t.to_json() for t in record.trials] == [t.to_json() for t in fixture.trials]
    assert {k: [t.to_json() for t in x] for k, x in record.rounds.variants.items()} == {
        k: [t.to_json() for t in x] for k, x in fixture.rounds.variants.items()}
    assert record.env == fixture.env and record.rounds.warmup_s == fixture.rounds.warmup_s
    n = fixture.rounds.rounds
    assert said[0].endswith(f"{fixture.sample.title} · population {fixture.sample.population:,} · torch "
                            f"{fixture.env.torch}")
    assert len([s for s in said if s.startswith("  [")]) == len(fixture.variants)
    assert sum("trying" in s for s in said) == len(fixture.trials) and said[-1].endswith(f"round {n} of {n}")
    # what is not known: counted, kept out of the variants, shown
    sent = len(lines) + len(rounds) + len(trials)
    assert record.probe_messages.to_json() == {"read": sent, "unknown_kinds": {"later": 1}}
    row = parse_row(report, "probe messages")
    assert row.read == sent and [problem(p) for p in row.problems] == [
        "a 'later' message: a kind this version does not know (not read)"]
    assert f"not understood: 1 of {sent} probe messages" in report.text()
    assert '<th scope="row">probe messages</th>' in report.html()
    assert parse_row(api.render(record_path("2.13.0", "poly")), "probe messages") is None  # none: no row
    python = stand_in(tmp_path, lines[:6])  # what collect shows progress: typed events, in order
    collect(ROOT / "samples" / "poly.py", python=str(python), only=["numpy"], progress=events.append)
    assert [type(e) for e in events] == [RunStarted, m.Header, m.Start, m.VariantResult, m.Unknown, m.Start,
                                         m.VariantResult]


def test_a_programs_stream_is_read_into_its_record_and_an_unknown_kind_counted(tmp_path):
    fixture = load(record_path("2.13.0", "ga"))
    header, end, replayed = program_messages(fixture)
    python = stand_in(tmp_path, [header, UNKNOWN, end, replayed])
    report = api.run(ROOT / "samples" / "programs" / "ga.py", fixture.program.argv, python=str(python), warm=False)
    assert [v.to_json() for v in report.record.variants] == [v.to_json() for v in fixture.variants]
    assert report.record.program.wall_s == fixture.program.wall_s and report.record.env == fixture.env
    assert report.record.probe_messages.to_json() == {"read": 4, "unknown_kinds": {"later": 1}}
    assert "not understood: 1 of 4 probe messages" in report.text()
