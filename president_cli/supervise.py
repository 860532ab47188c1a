"""``python -m president_cli.supervise COMMAND…``: run a command, and start it again
whenever it stops unasked, until SIGTERM or SIGINT, which it passes on once before
exiting with the command's own code.

``president up`` runs each of its processes under it: honcho stops every process as soon
as one ends, so one process falling over (a Redis restart once ended the Celery worker,
with exit code 0) would otherwise stop the whole system. The command runs in a session of
its own, so that a signal to supervise's process group reaches it once, from here.
Restarts wait 1 s, doubling up to 30 s while the command keeps failing within a minute.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from typing import Sequence

FIRST_PAUSE_S = 1.0
LONGEST_PAUSE_S = 30.0
STEADY_S = 60.0  # up this long: the next restart pauses FIRST_PAUSE_S again


def supervise(command: Sequence[str]) -> int:
    stopping = threading.Event()
    child: subprocess.Popen[bytes] | None = None

    def stop(signum: int, _frame: object) -> None:
        stopping.set()
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    pause = FIRST_PAUSE_S
    while True:
        started = time.monotonic()
        child = subprocess.Popen(command, start_new_session=True)
        code = child.wait()
        code = 128 - code if code < 0 else code  # killed by a signal: the shell's code
        if stopping.is_set():
            return code
        pause = FIRST_PAUSE_S if time.monotonic() - started > STEADY_S else pause
        print(f"supervise: {command[0]} stopped unasked (exit code {code}); starting it "
              f"again in {pause:.0f} s", file=sys.stderr, flush=True)
        if stopping.wait(pause):
            return code
        pause = min(pause * 2, LONGEST_PAUSE_S)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m president_cli.supervise COMMAND [ARG…]")
    sys.exit(supervise(sys.argv[1:]))
