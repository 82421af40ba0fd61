"""A throwaway PostgreSQL server on 127.0.0.1 for the gradebook tests.

    with LocalPostgres() as server:
        url = server.create_database("gradebook")   # postgresql://grader@127.0.0.1:PORT/gradebook

Uses Debian's server binaries (package `postgresql`, installed by `make test-deps`)
straight from /usr/lib/postgresql/<version>/bin: a fresh cluster in a temporary
folder, a free port, trust authentication on loopback only, no Unix socket, fsync
off (nothing in it outlives the test). PostgreSQL refuses to run as root, so as
root (as in CI) the server runs as the `postgres` system user the package creates.
Leaving the `with` block stops the server and deletes the folder.
"""
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg

from course.mail import free_port

SERVER_USER = "postgres"  # system user made by Debian's postgresql-common; used only when we are root
ROLE = "grader"  # the database superuser of the throwaway cluster


def server_bin_dir() -> Path:
    """The newest installed server version's bin folder."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"),
                        key=lambda path: int(path.parent.parent.name))
    if not candidates:
        raise RuntimeError("找不到 PostgreSQL 服务器（/usr/lib/postgresql/*/bin/pg_ctl）："
                           "先运行 `make test-deps` 安装 Debian 的 postgresql 软件包。")
    return candidates[-1].parent


class LocalPostgres:
    def __init__(self):
        self.bin_dir = server_bin_dir()
        self.port = None
        self.folder = None
        self._run_as = {}
        if os.geteuid() == 0:
            account = pwd.getpwnam(SERVER_USER)
            self._run_as = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([str(self.bin_dir / program), *args], check=True, cwd=self.folder,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **self._run_as)

    def start(self) -> "LocalPostgres":
        self.folder = Path(tempfile.mkdtemp(prefix="course-pg-"))
        if self._run_as:
            os.chown(self.folder, self._run_as["user"], self._run_as["group"])
        self._run("initdb", "-D", str(self.data_dir), "-U", ROLE, "--auth=trust",
                  "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        # Another program may take the port between free_port() and the server's bind: try again.
        for attempt in range(5):
            self.port = free_port()
            options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                       "-c unix_socket_directories='' -c fsync=off -c full_page_writes=off "
                       "-c max_connections=200")
            try:
                self._run("pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data_dir),
                          "-l", str(self.folder / "server.log"), "-o", options)
                return self
            except subprocess.CalledProcessError:
                if attempt == 4:
                    raise RuntimeError("PostgreSQL 没能启动：\n" + self.log())
        return self

    def log(self) -> str:
        log_file = self.folder / "server.log"
        return log_file.read_text(errors="replace") if log_file.exists() else ""

    def url(self, database: str) -> str:
        return f"postgresql://{ROLE}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database and return its SQLAlchemy URL."""
        # CREATE DATABASE cannot run inside a transaction: autocommit.
        with psycopg.connect(host="127.0.0.1", port=self.port, user=ROLE, dbname="postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.folder is None:
            return
        try:
            if (self.data_dir / "postmaster.pid").exists():
                self._run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.data_dir))
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> "LocalPostgres":
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc_info) -> None:
        self.stop()
