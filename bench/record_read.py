"""Reading records: ``inspector.record.load`` (the JSON parsed, then read into typed values) against the JSON parse
alone, over every record checked in under tests/fixtures/records.

    python bench/record_read.py [--repeats 7]

Each repeat times both over all the records, alternately; prints the medians, their spread (lowest to highest) and
the ratio of the medians: what reading into typed values costs beyond the parse. Every ``render``, ``compare`` and
``check`` pays it once per record.
"""

import argparse
import json
import statistics
import time
from pathlib import Path

from inspector.record import load

ROOT = Path(__file__).resolve().parent.parent
RECORDS = sorted((ROOT / "tests" / "fixtures" / "records").glob("*/*.json"))


def seconds(read) -> float:
    start = time.perf_counter()
    for path in RECORDS:
        read(path)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats
    parsed, typed = [], []
    for _ in range(repeats):
        parsed.append(seconds(lambda p: json.loads(p.read_text(encoding="utf-8"))))
        typed.append(seconds(load))
    size = sum(p.stat().st_size for p in RECORDS) / 2**20
    for name, times in (("JSON parse", parsed), ("record.load", typed)):
        print(f"{name:12} {statistics.median(times) * 1e3:7.1f} ms (min {min(times) * 1e3:.1f}, max "
              f"{max(times) * 1e3:.1f}) over {len(RECORDS)} records, {size:.1f} MiB")
    print(f"record.load / JSON parse: {statistics.median(typed) / statistics.median(parsed):.1f}x (medians of "
          f"{repeats})")


if __name__ == "__main__":
    main()
