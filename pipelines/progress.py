"""Progress lines for long work: live on a terminal, silent in CI logs and pipes."""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

# Set by `bvs run` to a duplicate of its terminal's stderr: Dagster captures the output of
# each step for its UI, so inside a step stderr is no longer the terminal.
TERMINAL_FD = "BVS_PROGRESS_FD"


def interactive(stream: TextIO = sys.stderr, setting: bool | None = None) -> bool:
    if setting is not None:
        return setting
    return stream.isatty() and not os.environ.get("CI")


def terminal_stream() -> TextIO | None:
    """The terminal handed over by `bvs run`, if any."""
    fd = os.environ.get(TERMINAL_FD)
    if not fd:
        return None
    try:
        return os.fdopen(int(fd), "w", closefd=False)
    except (OSError, ValueError):
        return None


class Progress:
    """``update(label, done, total)`` redraws one line at most every ``interval`` seconds."""

    def __init__(
        self,
        what: str,
        *,
        enabled: bool | None = None,
        stream: TextIO = sys.stderr,
        interval: float = 0.5,
    ) -> None:
        self.what = what
        handed = terminal_stream() if enabled is None else None
        self.stream = handed or stream
        self.enabled = True if handed else interactive(stream, enabled)
        self.interval = interval
        self.started = time.monotonic()
        self._last = 0.0
        self._drawn = False

    def update(self, label: str, done: int, total: int | None = None, *, files: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < self.interval:
            return
        self._last = now
        rate = done / max(now - self.started, 1e-9)
        of = f"/{total:,}" if total else ""
        extra = f"  files {files}" if files else ""
        line = f"{self.what}: {label} {done:,}{of} records  {rate:,.0f}/s{extra}"
        self.stream.write("\r\x1b[2K" + line[:160])
        self.stream.flush()
        self._drawn = True

    def done(self) -> None:
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
