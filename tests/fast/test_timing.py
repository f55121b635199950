"""The timing harness (standard library only) on calls whose duration it cannot know in advance: a stall in the
call the block size is estimated from must not end the timing long before its budget."""

import time

from inspector.probe.timing import MAX_RUNS, MIN_BLOCK_S, measure


def _stalls_on(calls_that_stall, stall_s, work_s=20e-6):
    count = {"n": 0}

    def call():
        count["n"] += 1
        time.sleep(stall_s if count["n"] in calls_that_stall else 0)
        end = time.perf_counter() + work_s
        while time.perf_counter() < end:
            pass
    return call


def test_a_stalled_estimate_is_sized_again_and_the_budget_is_spent():
    # call 1 is the warm-up, call 2 the estimate: descheduled for 5 ms on a busy machine
    began = time.perf_counter()
    timing = measure(_stalls_on({2}, 0.005), budget_s=0.3)
    spent = time.perf_counter() - began
    assert timing["number"] * timing["median_s"] >= MIN_BLOCK_S / 4
    assert spent >= 0.3 or timing["runs"] == MAX_RUNS
    assert timing["median_s"] < 1e-3


def test_a_steady_call_keeps_its_first_block_size():
    timing = measure(_stalls_on(set(), 0), budget_s=0.05)
    assert timing["number"] > 1 and timing["runs"] >= 5


def test_a_call_slower_than_the_budget_takes_few_blocks():
    timing = measure(_stalls_on(set(), 0, work_s=0.02), budget_s=0.01)
    assert timing["number"] == 1 and timing["runs"] == 3


def test_a_rewrites_runs_are_timed_in_their_variants_turn_sharing_half_its_budget():
    from inspector.probe import rounds
    from inspector.probe.messages import (Ready, RewriteTrial, Round, RoundResult, Trial, TrialAnswer, encode)

    def busy(seconds):
        def call():
            end = time.perf_counter() + seconds
            while time.perf_counter() < end:
                pass
        return call, lambda: None
    timed = {"python": busy(0.002), "numpy": busy(0.002)}
    trials = {"python-rewritten-numpy": busy(0.001), "python-rewritten-torch": busy(0.06),
              "numpy~tiling-off": busy(0.001)}
    said = []
    commands = [encode(RewriteTrial(id=rid, variant="python", rewrite=rid)) for rid in list(trials)[:2]]
    commands += [encode(Trial(id="numpy~tiling-off", variant="numpy"))]
    commands += [encode(Round(round=r, budget_s=0.2)) for r in (0, 1)]
    rounds.serve(timed, said.append, commands=commands,
                 trial=lambda ask: (TrialAnswer(id=ask.id, status="ok"), trials[ask.id]))
    assert isinstance(said[0], Ready)
    first, second = [m for m in said if isinstance(m, RoundResult)]
    # a fix has a turn of its own; a rewrite's run comes right after the variant it runs beside, in turn
    assert list(first.variants) == ["python", "python-rewritten-numpy", "python-rewritten-torch", "numpy",
                                    "numpy~tiling-off"]
    assert list(second.variants) == ["numpy", "numpy~tiling-off", "python", "python-rewritten-torch",
                                     "python-rewritten-numpy"]
    for result in (first, second):  # the variants and the fix get their turn's budget; the rewrites share half one
        t = result.variants
        assert min(t["numpy~tiling-off"].load.wall_s, t["python"].load.wall_s, t["numpy"].load.wall_s) >= 0.2
        # the short one's first call is the estimate its blocks are sized from: no call more
        fast = t["python-rewritten-numpy"]
        assert 0.05 <= fast.load.wall_s < 0.1 and fast.calls == 1 + fast.runs * fast.number and fast.runs > 1
        # longer than its share (0.05 s), shorter than the turn: called once more, its sample a warm call
        slow = t["python-rewritten-torch"]
        assert (slow.calls, slow.runs) == (2, 1) and slow.load.wall_s < 0.2
