"""The admin lists evaluations and their answers for staff, read-only."""

from __future__ import annotations

from django.test import Client


def test_staff_browse_evaluations_read_only(staff: Client):
    for model in ("evaluation", "interviewanswer"):
        assert staff.get(f"/admin/evaluations/{model}/").status_code == 200
        assert staff.get(f"/admin/evaluations/{model}/add/").status_code == 403
