"""The background job registry (cockpit/jobs.py): progress, ETA, cancel, failure, one running job per kind.

Jobs block on events the test controls, so nothing depends on timing; the clock is injected for the ETA.
"""
from __future__ import annotations

import threading

import pytest

from cockpit.jobs import CANCELLED, DONE, FAILED, JobRegistry, format_eta

pytestmark = pytest.mark.unit

WAIT = 10  # seconds; only reached when a job hangs, which is itself the failure


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_eta_and_result():
    clock = Clock()
    reg = JobRegistry(clock=clock)
    step, go_on = threading.Event(), threading.Event()

    def work(job):
        job.update(1, 4, "first case")
        step.set()
        assert go_on.wait(WAIT)
        return "saved.json"

    job = reg.start("bench", "dev, 4 cases", work)
    assert step.wait(WAIT)
    clock.now = 110.0  # one of four steps took 10 s: 30 s left
    assert job.running and reg.current("bench") is job
    assert job.fraction == 0.25 and job.text == "first case" and job.eta() == pytest.approx(30.0)
    with pytest.raises(ValueError, match="already running"):
        reg.start("bench", "again", lambda j: None)
    go_on.set()
    assert job.wait(WAIT)
    assert job.status == DONE and job.result == "saved.json" and job.eta() is None
    assert reg.current("bench") is job  # the ended job stays visible until the next one starts


def test_cancel_stops_at_the_next_check():
    reg = JobRegistry()
    started, checks = threading.Event(), []

    def work(job):
        started.set()
        for i in range(1000):
            assert job._cancel.wait(WAIT)  # wait for the cancel, then check like a runner between cases
            checks.append(i)
            job.check()
        return "never"

    job = reg.start("locomo", "two conversations", work)
    assert started.wait(WAIT)
    assert reg.cancel("locomo") is True
    assert job.wait(WAIT)
    assert job.status == CANCELLED and job.result is None and checks == [0]
    assert reg.cancel("locomo") is False  # nothing running any more


def test_failure_is_kept_and_kinds_are_independent():
    reg = JobRegistry()
    failed = reg.start("bench", "broken", lambda job: 1 / 0)
    other = reg.start("locomo", "fine", lambda job: 42)
    assert failed.wait(WAIT) and other.wait(WAIT)
    assert failed.status == FAILED and failed.error.startswith("ZeroDivisionError")
    assert other.status == DONE and other.result == 42
    again = reg.start("bench", "retry", lambda job: "ok")  # an ended job does not block a new one
    assert again.wait(WAIT) and reg.current("bench") is again and again.id != failed.id


@pytest.mark.parametrize("seconds, text", [(None, "estimating…"), (4.4, "4 s left"), (59.6, "1 min 00 s left"),
                                           (125, "2 min 05 s left")])
def test_format_eta(seconds, text):
    assert format_eta(seconds) == text
