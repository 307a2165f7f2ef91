#!/usr/bin/env python3
"""A solver that starts a process of its own, for the tests of `--solver NAME=cmd:...`.

    forking.py TRIGGER SLEEP [setsid] TAG

At start-up it sleeps SLEEP seconds, then starts a child that sleeps
for an hour, in its process group (with `setsid`: in a session and group of its own, as a
daemon), with TAG (a path that tests use to find their own processes) on its command line. It answers like examples/solvers/backtrack.py, except on
the puzzle TRIGGER (81 characters), where it creates the file TAG and answers nothing,
ever.
"""

import importlib.util
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = importlib.util.spec_from_file_location(
    "backtrack", os.path.join(HERE, "..", "..", "examples", "solvers", "backtrack.py")
)
backtrack = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(backtrack)


def main():
    trigger, sleep, tag = sys.argv[1], float(sys.argv[2]), sys.argv[-1]
    time.sleep(sleep)
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)", tag],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session="setsid" in sys.argv[3:-1],
    )
    out = sys.stdout.buffer
    for line in sys.stdin:
        if line.split()[0] == trigger:
            open(tag, "w").close()
            time.sleep(3600)
        out.write(backtrack.answer(line).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
