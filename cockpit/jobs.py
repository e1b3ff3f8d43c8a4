"""Background jobs (benchmark runs, LoCoMo runs) that outlive the page that started them.

A job runs its work function in a daemon thread; the page only reads the job's progress, so leaving the page
(or closing the tab) loses nothing, and coming back shows the job where it is. The cockpit keeps one
``JobRegistry`` per store in ``st.cache_resource`` (see ``state.jobs``); this module never imports streamlit,
so the registry is unit-tested on its own.

A work function receives its ``Job`` and reports through ``job.update(done, total, text)``; it checks
``job.cancelled`` between steps (or calls ``job.check()``, which raises ``JobCancelled``). Whatever it returns
is kept as ``job.result``; an exception becomes ``job.error``.
"""
from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

RUNNING, DONE, FAILED, CANCELLED = "running", "done", "failed", "cancelled"


class JobCancelled(Exception):
    """Raised inside a job's work when its cancel was requested (ends the job as cancelled)."""


@dataclass
class Job:
    id: int
    kind: str
    label: str
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)
    status: str = RUNNING
    done: int = 0
    total: int = 0
    text: str = "starting…"
    result: Any = None
    error: str | None = None
    started: float = 0.0
    finished: float | None = None
    seen: bool = False  # the page has shown the finished job once (its toast / switch to the result)
    _cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    _finished: threading.Event = field(default_factory=threading.Event, repr=False)

    def update(self, done: int, total: int, text: str = "") -> None:
        self.done, self.total = done, total
        if text:
            self.text = text

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        self._cancel.set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise JobCancelled()

    @property
    def running(self) -> bool:
        return self.status == RUNNING

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 0.0

    def elapsed(self) -> float:
        return (self.finished if self.finished is not None else self.clock()) - self.started

    def eta(self) -> float | None:
        """Seconds left, from the mean time per step so far; None before the first step or after the end."""
        if not self.running or not self.done or not self.total:
            return None
        return self.elapsed() / self.done * (self.total - self.done)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job has ended (tests; the page never waits). True when it ended in time."""
        return self._finished.wait(timeout)


class JobRegistry:
    """The jobs of one store: at most one running job per kind, the latest job of each kind kept."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._latest: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._clock = clock

    def current(self, kind: str) -> Job | None:
        """The running job of this kind, else the last one that ended (None when none ever ran)."""
        with self._lock:
            return self._latest.get(kind)

    def start(self, kind: str, label: str, work: Callable[[Job], Any]) -> Job:
        """Start work(job) in a background thread. ValueError when a job of this kind is already running."""
        with self._lock:
            old = self._latest.get(kind)
            if old is not None and old.running:
                raise ValueError(f"a {kind} job is already running ({old.label})")
            job = Job(id=next(self._ids), kind=kind, label=label, clock=self._clock, started=self._clock())
            self._latest[kind] = job
        threading.Thread(target=self._run, args=(job, work), name=f"memengine-{kind}-{job.id}", daemon=True).start()
        return job

    def _run(self, job: Job, work: Callable[[Job], Any]) -> None:
        try:
            job.result = work(job)
            job.status = CANCELLED if job.cancelled else DONE
        except JobCancelled:
            job.status = CANCELLED
        except BaseException as exc:  # reported on the page, never lost in a thread (not even a BaseException)
            job.error = f"{type(exc).__name__}: {exc}"
            job.status = FAILED
        finally:
            job.finished = self._clock()
            job._finished.set()

    def cancel(self, kind: str) -> bool:
        """Ask the running job of this kind to stop at its next check; False when none is running."""
        job = self.current(kind)
        if job is None or not job.running:
            return False
        job.cancel()
        return True


def format_eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s left" if seconds >= 60 else f"{seconds} s left"
