"""The arithmetic behind the page-speed budgets (devtools/_vitals.py), on hand-made inputs."""

from __future__ import annotations

import pytest
from _vitals import blocking_from_cpu, cls, inp, tbt


def test_blocking_from_cpu_counts_tasks_after_the_first_paint_at_4x():
    tasks = [(0.0, 100.0, 80.0), (200.0, 40.0, 30.0), (300.0, 20.0, 10.0), (900.0, 200.0, 100.0)]
    # first paint at 150 ms: the first task ended before it; 30 ms CPU -> 120 ms at 4x -> 70 ms
    # blocking; 10 ms -> 40 ms, not a long task; 100 ms -> 400 ms -> 350 ms blocking
    assert blocking_from_cpu(tasks, fcp=150.0) == (420.0, 2)
    assert blocking_from_cpu(tasks, fcp=1200.0) == (0.0, 0)
    assert blocking_from_cpu(tasks, fcp=150.0, rate=1.0) == (50.0, 1)


def test_tbt_stops_at_a_five_second_quiet_window():
    long = [{"t": 100.0, "d": 80.0}, {"t": 1000.0, "d": 150.0}, {"t": 7000.0, "d": 300.0}]
    total, tti = tbt(long, fcp=50.0)
    # 30 + 100 blocking; the task at 7 s comes after 5 s of quiet (from 1150 ms): not counted
    assert (total, tti) == (130.0, 1150.0)
    # a task straddling the first paint counts from the paint on
    total, _ = tbt([{"t": 0.0, "d": 200.0}], fcp=100.0)
    assert total == 50.0
    assert tbt([], fcp=300.0) == (0.0, 300.0)


def test_cls_takes_the_worst_session_window():
    shifts = [
        {"t": 0.0, "value": 0.05, "input": False},
        {"t": 500.0, "value": 0.05, "input": False},
        {"t": 3000.0, "value": 0.08, "input": False},
        {"t": 3100.0, "value": 0.5, "input": True},
    ]
    assert cls(shifts) == pytest.approx(
        0.1
    )  # the first window; the input-driven shift does not count
    assert cls([]) == 0.0
    # a window closes after 5 s even without a 1 s gap
    steady = [{"t": 900.0 * k, "value": 0.01, "input": False} for k in range(10)]
    assert cls(steady) == pytest.approx(0.06)


def test_inp_is_the_slowest_interaction():
    events = [
        {"id": 1, "d": 40.0},
        {"id": 1, "d": 72.0},
        {"id": 2, "d": 56.0},
        {"id": 0, "d": 500.0},
    ]
    assert inp(events) == 72.0  # id 0: not an interaction (e.g. a mouseover)
    assert inp([]) == 0.0
