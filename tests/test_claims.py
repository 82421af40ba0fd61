"""autograder.claims: graders that share a gradebook split the class, and take over a dead grader's students."""
import os
import subprocess
import sys
import time

from autograder.claims import Claims


def claims(tmp_path, monkeypatch=None, lease=None):
    if lease is not None:
        monkeypatch.setenv("AUTOGRADER_CLAIM_LEASE", str(lease))
    return Claims(f"sqlite:///{tmp_path / 'gradebook.db'}", "lesson03")


def test_one_student_one_grader_at_a_time(tmp_path):
    first, second = claims(tmp_path), claims(tmp_path)
    assert first.claim("alice") and not second.claim("alice")
    assert second.claim("bob") and not first.claim("bob")
    assert first.claim("alice"), "a grader may claim again what it holds"
    assert not second.is_done("alice", "fp1")
    first.done("alice", "fp1")
    assert second.is_done("alice", "fp1") and not second.is_done("alice", "fp2")
    assert not second.is_done("alice", "fp1", since=time.time() + 1), "--force: only what was done in this run"
    assert second.claim("alice"), "done means nobody holds the student"


def test_a_lease_that_ran_out_is_taken_over(tmp_path, monkeypatch):
    first = claims(tmp_path, monkeypatch, lease=0.2)
    second = claims(tmp_path)
    assert first.claim("alice") and not second.claim("alice")
    time.sleep(0.3)
    assert second.claim("alice")


def test_a_renewed_lease_is_kept(tmp_path, monkeypatch):
    first = claims(tmp_path, monkeypatch, lease=0.4)
    second = claims(tmp_path)
    with first.renewing():
        assert first.claim("alice")
        time.sleep(0.9)
        assert not second.claim("alice")


def test_a_dead_grader_of_this_machine_frees_its_students_at_once(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    first, second = claims(tmp_path), claims(tmp_path)
    first.owner = f"{first.host}:{dead}:gone"
    assert first.claim("alice")
    assert second.claim("alice")
    living = claims(tmp_path)
    living.owner = f"{living.host}:{os.getpid()}:alive"
    assert living.claim("bob") and not second.claim("bob")


def test_an_interrupted_grader_gives_back_what_it_held(tmp_path):
    first, second = claims(tmp_path), claims(tmp_path)
    assert first.claim("alice") and first.claim("bob")
    first.done("bob", "fp")
    first.release_all()
    assert second.claim("alice") and second.is_done("bob", "fp")


def test_the_claims_table_leaves_nbgrader_its_schema_version(tmp_path):
    from sqlalchemy import create_engine, inspect, text

    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    Claims(url, "lesson03")
    engine = create_engine(url)
    assert {"course_grading_claims", "alembic_version", "assignment"} <= set(inspect(engine).get_table_names())
    with engine.connect() as db:
        assert db.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1


def test_renewal_outlasts_a_gradebook_busy_for_longer_than_a_renewal(tmp_path, monkeypatch):
    import sqlite3

    import autograder.claims as module

    monkeypatch.setattr(module, "SQLITE_BUSY_SECONDS", 0.05)  # a renewal gives up on the busy gradebook quickly
    first = claims(tmp_path, monkeypatch, lease=0.4)
    second = claims(tmp_path)
    with first.renewing():
        assert first.claim("alice")
        writer = sqlite3.connect(tmp_path / "gradebook.db")
        writer.execute("BEGIN EXCLUSIVE")  # another grader's long write: renewals in this time fail
        time.sleep(0.5)
        writer.rollback()
        writer.close()
        time.sleep(0.3)  # renewed again since
        assert not second.claim("alice")


def test_a_grader_whose_student_was_taken_over_knows_it(tmp_path, monkeypatch):
    first = claims(tmp_path, monkeypatch, lease=0.2)
    second = claims(tmp_path)
    assert first.claim("alice") and first.keep("alice")
    time.sleep(0.3)
    assert second.claim("alice")
    assert not first.keep("alice"), "its results must not go into the gradebook"
    assert second.keep("alice")
