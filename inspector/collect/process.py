"""One probe child process and the stream of JSON-line messages it writes.

The child runs in a session of its own (so its OpenMP threads and compiler jobs go with it) and is killed on
every way out of the ``with`` block: a finished read, a timeout, a message that does not parse, an exception in
the caller's code, Ctrl-C. Reading, the clock, and classifying how it ended are separate pieces.
"""

import json
import os
import signal
import subprocess
import time


class ProbeStartError(Exception):
    """The interpreter could not be started; one line."""


class ProtocolError(Exception):
    """The probe wrote something that is not one JSON object per line; one line."""


class ProbeProcess:
    """``with ProbeProcess(command, env, log, results) as probe: for message in probe.messages(): ...``"""

    def __init__(self, command, env, log, results):
        self.command, self.env, self.log, self.results = command, env, log, results
        self.proc = None

    def __enter__(self):
        self._log = open(self.log, "ab")
        self._stream = open(self.results, encoding="utf-8")
        try:
            self.proc = subprocess.Popen(self.command, stdout=self._log, stderr=self._log, stdin=subprocess.DEVNULL,
                                         env=self.env, start_new_session=True)
        except OSError as e:
            self._close()
            raise ProbeStartError(f"cannot start {self.command[0]}: {e.strerror}") from None
        return self

    def __exit__(self, *exc):
        self.kill()
        self._close()
        return False

    def _close(self):
        self._stream.close()
        self._log.close()

    @property
    def pid(self):
        return self.proc.pid

    @property
    def returncode(self):
        return self.proc.returncode

    def running(self):
        return self.proc.poll() is None

    def kill(self):
        """Kill the child and everything it started (its session); a no-op once it is gone."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def messages(self, idle_s=0.05):
        """Each message (a dict) as the probe writes it, and None after each ``idle_s`` without one (for the
        caller's clock); ends once the process has exited and all it wrote was read."""
        pending = ""
        while True:
            pending += self._stream.readline()
            if pending.endswith("\n"):
                line, pending = pending, ""
                yield _decode(line)
                continue
            if not self.running():
                *complete, _ = (pending + self._stream.read()).split("\n")  # a half-written last line is lost
                for line in complete:
                    yield _decode(line)
                return
            yield None
            time.sleep(idle_s)


def _decode(line):
    try:
        message = json.loads(line)
    except json.JSONDecodeError as e:
        raise ProtocolError(f"the probe wrote a line that is not JSON ({e}): {line[:200]!r}") from None
    if not isinstance(message, dict) or "type" not in message:
        raise ProtocolError(f"the probe wrote a message without a type: {line[:200]!r}")
    return message


class Clock:
    """The time one variant has been running, against its timeout."""

    def __init__(self, timeout_s):
        self.timeout_s = timeout_s
        self.started = None

    def start(self):
        self.started = time.monotonic()

    def stop(self):
        self.started = None

    def expired(self):
        return self.started is not None and time.monotonic() - self.started > self.timeout_s


def how_it_ended(returncode):
    """'exit code N' or 'killed by SIGNAL'."""
    return f"killed by {signal.Signals(-returncode).name}" if returncode < 0 else f"exit code {returncode}"
