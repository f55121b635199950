"""One probe child process and the stream of JSON-line messages it writes.

The child runs in a session of its own (so its OpenMP threads and compiler jobs go with it) and is killed on
every way out of the ``with`` block: a finished read, a timeout, a message that does not parse, an exception in
the caller's code, Ctrl-C. Reading, the clock, and classifying how it ended are separate pieces.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Optional, Union

from inspector.probe.graphcache import FACTS_ENV
from inspector.probe.messages import PROBE, Message, MessageError, Unknown, encode, read

PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent


def probe_env(trace_dir: Union[str, Path, None] = None) -> dict[str, str]:
    """The environment of a probe child: inspector importable from any interpreter, torch's trace to ``trace_dir``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(PACKAGE_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    if trace_dir:
        env["TORCH_TRACE"] = str(trace_dir)
    return env


def cache_env(env: dict[str, str], cache: Path, *, kept: bool = False) -> dict[str, str]:
    """``env`` with torch's caches (Inductor's, Triton's) in ``cache``: a folder of inspector's, never the user's;
    ``kept``: and capture's kept facts beside them, so that capture lets torch use its caches
    (``inspector.probe.graphcache``)."""
    env = dict(env, TORCHINDUCTOR_CACHE_DIR=str(cache), TRITON_CACHE_DIR=str(cache / "triton"))
    return dict(env, **{FACTS_ENV: str(cache / "inspector-graphs")}) if kept else env


class ProbeStartError(Exception):
    """The interpreter could not be started; one line."""


class ProtocolError(Exception):
    """The probe wrote something that is not one message per line; one line."""


class ProbeProcess:
    """``with ProbeProcess(command, env, log, results) as probe: for message in probe.messages(): ...``

    With ``talk``, the probe reads lines from ``send``; ``hold()`` inside the block keeps it alive after the block
    (for more messages), until ``release()``.
    """

    def __init__(self, command: list[str], env: dict[str, str], log: Union[str, Path], results: Union[str, Path],
                 talk: bool = False) -> None:
        self.command, self.env, self.log, self.results, self.talk = command, env, log, results, talk
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.held = False

    def __enter__(self) -> ProbeProcess:
        self._log = open(self.log, "ab")
        self._stream = open(self.results, encoding="utf-8")
        try:
            self.proc = subprocess.Popen(self.command, stdout=self._log, stderr=self._log, env=self.env,
                                         stdin=subprocess.PIPE if self.talk else subprocess.DEVNULL,
                                         start_new_session=True)
        except OSError as e:
            self._close()
            raise ProbeStartError(f"cannot start {self.command[0]}: {e.strerror}") from None
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.held or exc[0] is not None:
            self.release()

    def hold(self) -> ProbeProcess:
        """Keep the probe alive after the ``with`` block; return it."""
        self.held = True
        return self

    def release(self) -> None:
        """Kill the probe and close its files (once)."""
        if not self._stream.closed:
            self.kill()
            self._close()

    def send(self, command: Message) -> bool:
        """Write one command to the probe's stdin; False if it is gone."""
        assert self.proc is not None and self.proc.stdin is not None, "a probe started with talk=True"
        try:
            self.proc.stdin.write((encode(command) + "\n").encode())
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def _close(self) -> None:
        if self.proc is not None and self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        self._stream.close()
        self._log.close()

    @property
    def pid(self) -> int:
        assert self.proc is not None, "a started probe"
        return self.proc.pid

    @property
    def returncode(self) -> Optional[int]:
        assert self.proc is not None, "a started probe"
        return self.proc.returncode

    def running(self) -> bool:
        assert self.proc is not None, "a started probe"
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the child and everything it started (its session); a no-op once it is gone."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def messages(self, idle_s: float = 0.05) -> Iterator[Message | Unknown | None]:
        """Each message (``inspector.probe.messages``) as the probe writes it, and None after each ``idle_s``
        without one (for the caller's clock); ends once the process has exited and all it wrote was read."""
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


def _decode(line: str) -> Message | Unknown:
    try:
        return read(line, PROBE)
    except MessageError as e:
        raise ProtocolError(f"the probe wrote {e}") from None


class Clock:
    """The time one variant has been running, against its timeout."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.started: Optional[float] = None

    def start(self) -> None:
        self.started = time.monotonic()

    def stop(self) -> None:
        self.started = None

    def expired(self) -> bool:
        return self.started is not None and time.monotonic() - self.started > self.timeout_s


def how_it_ended(returncode: int) -> str:
    """'exit code N' or 'killed by SIGNAL'."""
    return f"killed by {signal.Signals(-returncode).name}" if returncode < 0 else f"exit code {returncode}"
