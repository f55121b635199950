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
