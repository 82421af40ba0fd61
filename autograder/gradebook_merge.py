"""One gradebook, many workers: private gradebooks for the workers, one writer for the class.

SQLite allows one writer at a time, so parallel workers that all wrote into
gradebook.db would meet "database is locked". Instead each student is autograded
by stock nbgrader into a private SQLite gradebook that starts as a copy of what the
main gradebook holds for this assignment and this student (the assignment's cells,
and the student's earlier submission with its manual scores and extension, which
change what autograde computes). Afterwards the one writer process copies back
exactly what autograde changed in that copy: new rows, and changed fields of
existing rows. Anything autograde did not touch (a grader's manual score given
meanwhile, say) is left as it is in the main gradebook.

The tables are nbgrader's own (`nbgrader.api.Base.metadata`), rows keep their ids.
`class_scores()` reads any gradebook back through nbgrader's API, for comparisons
and the class report.
"""
import shutil
from pathlib import Path

from nbgrader.api import Base, Gradebook, MissingEntry
from sqlalchemy import create_engine, insert, select, update

TABLES = Base.metadata.tables
# What `nbgrader generate_assignment` stores: the same for every student.
STRUCTURE_TABLES = ("course", "assignment", "notebook", "base_cell", "source_cell",
                    "grade_cells", "solution_cells", "task_cells")
# What autograde writes for one student, parents before children.
STUDENT_TABLES = ("student", "submitted_assignment", "submitted_notebook", "grade", "comment")


def open_engine(db_url: str):
    # Readers such as the formgrader may hold SQLite's lock for a moment: wait, do not fail.
    options = {"connect_args": {"timeout": 60}} if db_url.startswith("sqlite") else {}
    return create_engine(db_url, **options)


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{Path(path).resolve()}"


def write_template(main_url: str, path: Path) -> None:
    """An SQLite gradebook with every assignment's cells and no students."""
    source, target = open_engine(main_url), open_engine(sqlite_url(path))
    try:
        Base.metadata.create_all(target)
        with source.connect() as reading, target.begin() as writing:
            for name in STRUCTURE_TABLES:
                rows = [dict(row) for row in reading.execute(select(TABLES[name])).mappings()]
                if rows:
                    writing.execute(insert(TABLES[name]), rows)
    finally:
        source.dispose()
        target.dispose()


def student_rows(connection, assignment: str, student: str) -> dict:
    """{table name: {row id: row dict}} for one student's submission of one assignment."""
    t = TABLES
    assignment_ids = select(t["assignment"].c.id).where(t["assignment"].c.name == assignment)
    queries = {
        "student": select(t["student"]).where(t["student"].c.id == student),
        "submitted_assignment": select(t["submitted_assignment"]).where(
            t["submitted_assignment"].c.student_id == student,
            t["submitted_assignment"].c.assignment_id.in_(assignment_ids)),
    }
    rows = {name: _by_id(connection, query) for name, query in queries.items()}
    rows["submitted_notebook"] = _by_id(connection, select(t["submitted_notebook"]).where(
        t["submitted_notebook"].c.assignment_id.in_(list(rows["submitted_assignment"]))))
    for name in ("grade", "comment"):
        rows[name] = _by_id(connection, select(t[name]).where(
            t[name].c.notebook_id.in_(list(rows["submitted_notebook"]))))
    return rows


def _by_id(connection, query) -> dict:
    return {row["id"]: dict(row) for row in connection.execute(query).mappings()}


def seed_private(main_url: str, template: Path, private: Path, assignment: str, student: str) -> dict:
    """Make `private` a copy of the template plus the student's rows from the main gradebook.

    Returns those rows: merge_private() compares against them to find what autograde changed.
    """
    shutil.copyfile(template, private)
    source, target = open_engine(main_url), open_engine(sqlite_url(private))
    try:
        with source.connect() as reading:
            seeded = student_rows(reading, assignment, student)
        with target.begin() as writing:
            for name in STUDENT_TABLES:
                if seeded[name]:
                    writing.execute(insert(TABLES[name]), list(seeded[name].values()))
    finally:
        source.dispose()
        target.dispose()
    return seeded


def merge_private(private: Path, main_url: str, seeded: dict, assignment: str, student: str) -> int:
    """Copy what autograde changed in `private` into the main gradebook, in one transaction.

    Returns how many rows were inserted or updated.
    """
    source, target = open_engine(sqlite_url(private)), open_engine(main_url)
    changed = 0
    try:
        with source.connect() as reading:
            graded = student_rows(reading, assignment, student)
        with target.begin() as writing:
            for name in STUDENT_TABLES:
                table = TABLES[name]
                for row_id, row in graded[name].items():
                    before = seeded[name].get(row_id)
                    if before is None:
                        writing.execute(insert(table), [row])
                        changed += 1
                        continue
                    delta = {column: value for column, value in row.items() if before.get(column) != value}
                    if delta:
                        writing.execute(update(table).where(table.c.id == row_id).values(**delta))
                        changed += 1
    finally:
        source.dispose()
        target.dispose()
    return changed


def submission_score(db_url: str, assignment: str, student: str, course_id: str = "default_course"):
    """(score, max score) of one submission, or (None, None) when there is none."""
    with Gradebook(db_url, course_id) as gradebook:
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:
            return None, None
        return submission.score, submission.max_score


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
