"""Grades in a form Canvas and Moodle import, through nbgrader's exporter plugin interface.

    nbgrader export --exporter=autograder.lms_export.LmsExport --to=lms-grades.csv     (make lms-grades)

One row per student of the gradebook, one column per lesson handed in (its name: lesson03,
lesson04; a lesson released but not handed in yet has no column, which would import as zeros)
holding the score after any late penalty, as nbgrader's own grades.csv computes it (a
student with no submission gets 0). The other columns are the ones Canvas's gradebook
import matches students by (Student, ID, SIS User ID, SIS Login ID, Section; ID is left
empty, so Canvas matches on the SIS ids, which hold the nbgrader student id) and an Email
column; Moodle's CSV grade import maps any of them to its username, ID number or email.
UTF-8, comma-separated.
"""
import csv

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin

from autograder.grade import graded_lessons

HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Email"]


class LmsExport(ExportPlugin):
    """The LMS import file: see the module docstring."""

    def export(self, gradebook: Gradebook) -> None:
        wanted = [name for name in graded_lessons(gradebook) if not self.assignment or name in self.assignment]
        assignments = [gradebook.find_assignment(name) for name in wanted]
        students = sorted((s for s in gradebook.students if not self.student or s.id in self.student), key=lambda s: s.id)
        with open(self.to or "lms-grades.csv", "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(HEADER + [assignment.name for assignment in assignments])
            for student in students:
                name = " ".join(part for part in (student.first_name, student.last_name) if part) or student.id
                writer.writerow([name, "", student.id, student.id, "", student.email or ""]
                                + [score_of(gradebook, assignment.name, student.id) for assignment in assignments])


def score_of(gradebook: Gradebook, assignment: str, student: str) -> str:
    try:
        submission = gradebook.find_submission(assignment, student)
    except MissingEntry:
        return "0"
    return f"{max(0.0, submission.score - (submission.late_submission_penalty or 0)):g}"
