"""Every student's scores, read back from a gradebook through nbgrader's own API.

For the class report, the benchmark's comparisons and the tests.
"""
from nbgrader.api import Gradebook, MissingEntry


def class_scores(db_url: str, assignment: str, course_id: str = "default_course") -> dict:
    """{student: {...}} of every submission: per grade cell the scores, per cell the auto comment.

    Read through nbgrader's own API, so `score` is nbgrader's (manual overrides auto).
    """
    result = {}
    with Gradebook(db_url, course_id) as gradebook:
        try:
            submissions = gradebook.find_assignment(assignment).submissions
        except MissingEntry:
            return result
        for submission in submissions:
            cells, comments, penalties = {}, {}, {}
            for notebook in submission.notebooks:
                penalties[notebook.name] = notebook.late_submission_penalty
                for grade in notebook.grades:
                    cells[grade.name] = {"auto_score": grade.auto_score, "manual_score": grade.manual_score,
                                         "needs_manual_grade": grade.needs_manual_grade,
                                         "score": grade.score, "max_score": grade.max_score}
                for comment in notebook.comments:
                    comments[comment.name] = comment.auto_comment
            result[submission.student_id] = {
                "timestamp": submission.timestamp.isoformat() if submission.timestamp else None,
                "score": submission.score, "max_score": submission.max_score,
                "late_penalties": penalties, "cells": cells, "comments": comments}
    return result
