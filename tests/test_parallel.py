"""The parallel run's parts that decide what runs where (tests/parallel.py,
tests/durations.py): units of work handed out longest first by the seconds a measured run
took; a JUnit report read into node ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import durations, parallel


def test_units_go_longest_first_with_unknown_tests_counted_short(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        durations,
        "expected",
        lambda: {
            "tests/a/test_kiln.py::test_fires": 90.0,
            "tests/b/test_loom.py::test_weaves": 20.0,
        },
    )
    collected = [
        "tests/b/test_loom.py::test_weaves",
        "tests/c/test_quay.py::test_one",
        "tests/c/test_quay.py::test_two",
        "tests/a/test_kiln.py::test_fires",
        "tests/a/test_kiln.py::test_cools",
    ]
    ordered = parallel.units_longest_first(collected, lambda nodeid: nodeid.split("::")[0])
    assert ordered == [
        (
            "tests/a/test_kiln.py",
            ["tests/a/test_kiln.py::test_fires", "tests/a/test_kiln.py::test_cools"],
        ),
        ("tests/b/test_loom.py", ["tests/b/test_loom.py::test_weaves"]),
        (
            "tests/c/test_quay.py",
            ["tests/c/test_quay.py::test_one", "tests/c/test_quay.py::test_two"],
        ),
    ]
    assert durations.seconds(["tests/c/test_quay.py::test_one"]) == durations.OTHER


def test_a_junit_report_becomes_the_slow_tests_node_ids(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_parallel" name="test_slow[3-x]" time="12.34"/>'
        '<testcase classname="tests.test_pools.TestPool" name="test_method" time="2.5"/>'
        '<testcase classname="tests.test_parallel" name="test_quick" time="0.2"/>'
        "</testsuite></testsuites>"
    )
    assert durations.from_junit(report) == {
        "tests/test_parallel.py::test_slow[3-x]": 12.3,
        "tests/test_pools.py::TestPool::test_method": 2.5,
    }


def test_the_shipped_durations_name_tests_that_exist() -> None:
    """A stale entry would only order the queue less well; most must still be tests."""
    root = Path(__file__).resolve().parent.parent
    known = durations.expected()
    assert known, "tests/durations.json is missing"
    files = {nodeid.split("::")[0] for nodeid in known}
    assert sum((root / f).exists() for f in files) >= 0.9 * len(files)
