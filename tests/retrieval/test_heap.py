"""heap.returning_frees: build-time malloc thresholds, restored for queries."""

from __future__ import annotations

import threading

import pytest

from ragcore import heap


@pytest.fixture
def calls(monkeypatch):
    seen: list[tuple[int, int, bool]] = []
    monkeypatch.setattr(heap, "_set", lambda m, t, trim=False: seen.append((m, t, trim)))
    return seen


def test_build_thresholds_inside_query_thresholds_after(calls):
    with heap.returning_frees():
        assert calls == [(heap.BUILD_MMAP_THRESHOLD, heap.BUILD_TRIM_THRESHOLD, False)]
    assert calls[-1] == (heap.QUERY_MMAP_THRESHOLD, heap.QUERY_TRIM_THRESHOLD, True)
    assert len(calls) == 2


def test_nested_and_concurrent_blocks_share_one_setting(calls):
    entered, release = threading.Event(), threading.Event()

    def other():
        with heap.returning_frees():
            entered.set()
            release.wait(5)

    worker = threading.Thread(target=other)
    with heap.returning_frees():
        worker.start()
        assert entered.wait(5)
        with heap.returning_frees():
            pass
    assert len(calls) == 1  # the other thread's block is still open: no query setting yet
    release.set()
    worker.join(5)
    assert [c[2] for c in calls] == [False, True]


def test_a_failing_build_still_restores(calls):
    with pytest.raises(RuntimeError), heap.returning_frees():
        raise RuntimeError("build failed")
    assert calls[-1][2] is True
    assert heap._DEPTH == 0


def test_the_real_calls_run_on_this_platform():
    with heap.returning_frees():
        block = bytearray(4 << 20)
        del block
    assert heap._DEPTH == 0
