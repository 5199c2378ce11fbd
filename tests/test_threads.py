"""cranfield._threads.in_order: results in the items' order, at most ``ahead`` calls ahead, the rest
cancelled when the caller stops."""

import threading
from concurrent.futures import ThreadPoolExecutor

from cranfield._threads import in_order


def test_results_come_in_order_and_at_most_ahead_calls_ahead():
    started = []
    lock = threading.Lock()

    def work(item):
        with lock:
            started.append(item)
        return item * item

    with ThreadPoolExecutor(4) as pool:
        taken = []
        for item, result in in_order(pool, work, range(20), 3):
            assert len(started) <= item + 1 + 3  # never more than 3 submitted beyond the one taken
            taken.append((item, result))
    assert taken == [(i, i * i) for i in range(20)]


def test_stopping_early_cancels_the_calls_not_started():
    gate = threading.Event()
    ran = []

    def work(item):
        if item:
            gate.wait(5)  # the first call is done at once; the second holds the only worker
        ran.append(item)
        return item

    with ThreadPoolExecutor(1) as pool:
        results = in_order(pool, work, range(10), 5)
        assert next(results) == (0, 0)
        results.close()  # calls 2-5 waiting in the pool: cancelled
        gate.set()
    assert ran in ([0], [0, 1])  # the second call may have started before the stop
