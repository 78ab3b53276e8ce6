"""The process lease (world/leases.py): one holder name per process."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from world import leases


def test_threads_asking_at_once_share_the_process_holder_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A threads pool's first tasks ask at once: the ledger must see one holder, whose
    lease says whether the process lives, not one name per thread."""
    monkeypatch.setattr(leases, "_holder", None)
    start = threading.Barrier(8)

    def ask() -> str:
        start.wait()
        return leases.process_holder()

    with ThreadPoolExecutor(8) as pool:
        names = set(pool.map(lambda _: ask(), range(8)))
    assert len(names) == 1, names
    assert leases.process_holder() in names
