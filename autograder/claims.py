"""Which grader grades which student: claims kept in the gradebook's own database.

Two `make grade` runs on one course folder (one SQLite gradebook), or graders on several
machines that share one PostgreSQL gradebook, split the class instead of grading it
twice. Before a grader stages a student it claims them with a conditional UPDATE that
only one transaction can win (SQLite lets one writer in at a time, PostgreSQL locks the
row); once the student's results are in the gradebook the claim is marked done with the
fingerprint of the submission it graded, so a later run, here or elsewhere, skips them
until they submit again.

A claim is a lease: a thread renews its owner's claims while it grades. A grader that
dies stops renewing, and another grader takes its students over when the lease runs
out, or at once when the dead grader ran on the same machine and its pid is gone.
"""
import fcntl
import os
import socket
import threading
import time
import uuid
from contextlib import contextmanager

from nbgrader.api import Gradebook
from sqlalchemy import (Column, Float, MetaData, String, Table, and_, create_engine, insert, or_,
                        select, text, update)
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.pool import NullPool

LEASE_ENV = "AUTOGRADER_CLAIM_LEASE"
DEFAULT_LEASE = 120.0  # seconds; renewed every quarter of it
SQLITE_BUSY_SECONDS = 60  # how long a grader waits while another one writes the SQLite gradebook
SCHEMA_LOCK = 0x636C61696D  # PostgreSQL advisory lock held while a grader makes the gradebook's tables

METADATA = MetaData()
CLAIMS = Table(
    "course_grading_claims", METADATA,
    Column("assignment", String(128), primary_key=True),
    Column("student", String(128), primary_key=True),
    Column("owner", String(200), nullable=True),  # host:pid:run of the grader grading them now
    Column("expires", Float, nullable=True),
    Column("done_fingerprint", String(64), nullable=True),  # of the submission last graded to the end
    Column("done_at", Float, nullable=True),
)


def lease_seconds() -> float:
    return float(os.environ.get(LEASE_ENV) or DEFAULT_LEASE)


class Claims:
    """One grader's side of the claims on one assignment."""

    def __init__(self, db_url: str, assignment: str):
        # no pooled connection: the judge's workers are forked from this process and must not share one.
        # SQLite's default 5 s wait for a busy gradebook is shorter than nbgrader's writes on a loaded machine
        sqlite = db_url.startswith("sqlite")
        self.engine = create_engine(db_url, poolclass=NullPool,
                                    connect_args={"timeout": SQLITE_BUSY_SECONDS} if sqlite else {})
        with self.engine.begin() as db:
            if db.dialect.name == "postgresql":  # graders starting together on a new gradebook: one at a time
                db.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
            with Gradebook(db_url):  # nbgrader's tables first: it stamps its schema version only into an empty one
                pass
            METADATA.create_all(db)
        self.assignment = assignment
        self.host = socket.gethostname()
        self.owner = f"{self.host}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.lease = lease_seconds()
        self.started = time.time()

    def _row(self, student: str):
        return and_(CLAIMS.c.assignment == self.assignment, CLAIMS.c.student == student)

    def claim(self, student: str) -> bool:
        """True when this grader now holds the student (nobody did, or the holder's lease ran out)."""
        now = time.time()
        with self.engine.begin() as db:
            try:
                db.execute(insert(CLAIMS).values(assignment=self.assignment, student=student, owner=self.owner,
                                                 expires=now + self.lease))
                return True
            except IntegrityError:
                pass
        self._free_dead_neighbours(student)
        with self.engine.begin() as db:
            won = db.execute(update(CLAIMS).where(self._row(student), or_(
                CLAIMS.c.owner.is_(None), CLAIMS.c.owner == self.owner, CLAIMS.c.expires < now)).values(
                owner=self.owner, expires=now + self.lease))
            return won.rowcount == 1

    def _free_dead_neighbours(self, student: str) -> None:
        """A claim held by a grader of this machine whose process is gone is free at once."""
        with self.engine.begin() as db:
            owner = db.execute(select(CLAIMS.c.owner).where(self._row(student))).scalar()
            if owner and owner.startswith(f"{self.host}:") and not _alive(owner):
                db.execute(update(CLAIMS).where(self._row(student), CLAIMS.c.owner == owner).values(owner=None))

    def keep(self, student: str) -> bool:
        """True when this grader still holds the student, whose lease then starts again: checked before
        its results go into the gradebook, since a lease that ran out may have been taken over."""
        with self.engine.begin() as db:
            kept = db.execute(update(CLAIMS).where(self._row(student), CLAIMS.c.owner == self.owner).values(
                expires=time.time() + self.lease))
            return kept.rowcount == 1

    def done(self, student: str, fingerprint: str) -> None:
        with self.engine.begin() as db:
            db.execute(update(CLAIMS).where(self._row(student)).values(
                owner=None, expires=None, done_fingerprint=fingerprint, done_at=time.time()))

    def is_done(self, student: str, fingerprint: str, since: float = 0.0) -> bool:
        """Graded to the end, from this submission (and, for --force, during this run)."""
        with self.engine.begin() as db:
            row = db.execute(select(CLAIMS.c.done_fingerprint, CLAIMS.c.done_at).where(self._row(student))).first()
        return row is not None and row.done_fingerprint == fingerprint and (row.done_at or 0) >= since

    def release_all(self) -> None:
        """What this grader holds and did not finish goes back (Ctrl-C): others need not wait for the lease."""
        with self.engine.begin() as db:
            db.execute(update(CLAIMS).where(CLAIMS.c.assignment == self.assignment,
                                            CLAIMS.c.owner == self.owner).values(owner=None, expires=None))

    @contextmanager
    def renewing(self):
        """Renew this grader's claims every quarter of the lease while the block runs."""
        stop = threading.Event()

        def renew():
            while not stop.wait(self.lease / 4):
                try:
                    with self.engine.begin() as db:
                        db.execute(update(CLAIMS).where(CLAIMS.c.assignment == self.assignment,
                                                        CLAIMS.c.owner == self.owner).values(
                            expires=time.time() + self.lease))
                except OperationalError:  # a gradebook busy or briefly unreachable: try again next time
                    continue

        thread = threading.Thread(target=renew, daemon=True, name="claims-renewal")
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join()

    def close(self) -> None:
        self.engine.dispose()


@contextmanager
def folder_lock(path):
    """Held by one grader of this course folder at a time (the others wait): for nbgrader's steps that
    rewrite shared files, such as generating the assignment the gradebook grades against."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _alive(owner: str) -> bool:
    try:
        os.kill(int(owner.split(":")[1]), 0)
    except ProcessLookupError:
        return False
    except (ValueError, IndexError, OSError):
        return True
    return True
