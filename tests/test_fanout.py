"""A job carries its function's arguments by name: a wrong or missing name fails when the job is made."""

from __future__ import annotations

import pytest

from mmc.core.fanout import Job, serial


def scaled(value: int, factor: int, offset: int = 0) -> int:
    return value * factor + offset


def test_a_job_calls_its_function_with_keywords() -> None:
    jobs = [
        Job("scale", ("a",), scaled, {"factor": 3, "value": 2}),
        Job("scale", ("b",), scaled, {"value": 1, "factor": 1, "offset": 5}),
    ]
    assert serial(jobs) == [6, 6]
    assert jobs[0].name == "scale-a"


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [({"value": 2}, "missing a required argument: 'factor'"),
     ({"value": 2, "factor": 3, "scale": 1}, "got an unexpected keyword argument 'scale'")],
)  # fmt: skip
def test_a_job_with_a_wrong_or_missing_keyword_fails_when_made(kwargs: dict[str, int], problem: str) -> None:
    with pytest.raises(TypeError, match=f"job scale-a: scaled\\(\\) {problem}"):
        Job("scale", ("a",), scaled, kwargs)
