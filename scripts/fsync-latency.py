#!/usr/bin/env python3
"""How long the disk takes to make one 8 KiB write durable (fdatasync), as PostgreSQL's WAL
flush does at every commit: p50, p99, p99.9 and max over a timed loop.

Every move waits for a commit, and a slow fsync holds back every move queued behind it, so
the tail of this distribution shows up in the move latency's tail (docs/performance.md,
"Known limits"). `pg_test_fsync` reports only averages.

    scripts/fsync-latency.py [directory] [seconds]

The directory defaults to PostgreSQL's data directory's filesystem (/var/lib/postgresql),
the seconds to 10. The probe file is removed afterwards.
"""
import os
import sys
import time

directory = sys.argv[1] if len(sys.argv) > 1 else "/var/lib/postgresql"
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
path = os.path.join(directory, f"oddboard-fsync-probe-{os.getpid()}")
block = b"x" * 8192
blocks = 128  # a 1 MiB file written round and round, like a WAL segment's head

fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
try:
    os.write(fd, block * blocks)
    os.fsync(fd)
    took = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        os.pwrite(fd, block, (len(took) % blocks) * len(block))
        started = time.perf_counter()
        os.fdatasync(fd)
        took.append(time.perf_counter() - started)
finally:
    os.close(fd)
    os.unlink(path)

took.sort()
count = len(took)


def percentile_ms(p):
    return took[min(count - 1, int(p / 100 * count))] * 1000


print(f"fdatasyncs: {count}")
print(f"per_second: {count / seconds:.0f}")
print(f"p50_ms: {percentile_ms(50):.3f}")
print(f"p99_ms: {percentile_ms(99):.3f}")
print(f"p99.9_ms: {percentile_ms(99.9):.3f}")
print(f"max_ms: {took[-1] * 1000:.3f}")
print(f"over_5_ms: {sum(1 for t in took if t > 0.005)}")
