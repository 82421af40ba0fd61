"""The throwaway PostgreSQL server used by the gradebook tests starts, serves and leaves nothing behind."""
import os
import socket
import sys
from pathlib import Path

import psycopg
import pytest
from nbgrader.api import Gradebook

from postgres_harness import LocalPostgres


def port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_server_starts_serves_nbgrader_and_is_gone_afterwards(monkeypatch):
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # nbgrader runs `alembic`
    with LocalPostgres() as server:
        url = server.create_database("gradebook")
        folder, port = server.folder, server.port
        assert url == f"postgresql://grader@127.0.0.1:{port}/gradebook"
        with Gradebook(url, "agent-crash-recovery") as gradebook:  # nbgrader makes its tables through SQLAlchemy
            gradebook.add_assignment("lesson03")
            gradebook.add_student("alice")
            gradebook.add_submission("lesson03", "alice")
        with psycopg.connect(host="127.0.0.1", port=port, user="grader", dbname="gradebook") as connection:
            assert connection.execute("select student_id from submitted_assignment").fetchall() == [("alice",)]
    assert not folder.exists()
    assert not port_open(port)


def test_a_failed_start_cleans_up_and_says_why(monkeypatch):
    server = LocalPostgres()
    monkeypatch.setattr(server, "bin_dir", server.bin_dir.parent / "no-such-bin")
    with pytest.raises(Exception):
        with server:
            pass
    assert server.folder is None
