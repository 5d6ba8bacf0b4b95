"""A run directory on disk (layout: docs/protocol.md, *Layout*): a directory with a
``handoffs/`` folder, addressed by its path relative to the store's root. Every name read
from disk or from an argument is checked against the id pattern and must resolve inside
the run.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handoff_gate.gates.store import (
    fs_contracts,
    fs_deliveries,
    fs_edits,
    fs_layout,
    fs_withdrawals,
    log_file,
    waiters,
)
from handoff_gate.gates.store.base import (
    Change,
    DecisionExists,
    DeliveryExists,
    ListedHandoff,
    RunReplaced,
    StoredContract,
    StoredHandoff,
    Subscription,
    WaiterRecord,
    WatchLapse,
    WithdrawalExists,
)
from handoff_gate.gates.store.durable import exclusive_create, inside, read_bounded, reserve
from handoff_gate.gates.store.fs_listing import AUDIT_FILE as AUDIT_FILE
from handoff_gate.gates.store.fs_listing import DECISIONS as DECISIONS
from handoff_gate.gates.store.fs_listing import HANDOFFS as HANDOFFS
from handoff_gate.gates.store.fs_listing import handoff_ids_in, list_run_dir
from handoff_gate.gates.store.lock_bound import LockTimeout, lock_timeout
from handoff_gate.gates.store.log_chain import chained_line
from handoff_gate.gates.vocab.handoff_ref import HandoffRef
from handoff_gate.gates.vocab.ids import ID_PATTERN, PRINCIPAL_PATTERN, validate_id
from handoff_gate.gates.vocab.limits import MAX_DECISION_BYTES, MAX_HANDOFF_BYTES

if TYPE_CHECKING:
    import threading

SEQ = ".seq"
KEYS = ".keys"

#: How long a submit with a known idempotency key waits for the first submitter to
#: finish publishing the handoff that key names.
_KEY_SETTLE_S = 5.0


@lru_cache(maxsize=4096)
def _resolved_name(run: str) -> str:
    return Path(run).resolve().name


def run_dir_name(run_dir: str | Path) -> str:
    """The run directory's own name, symlinks resolved; cached, as every inspection asks
    (the TUI inspects ten thousand handoffs on start)."""
    return _resolved_name(str(Path(run_dir).absolute()))


def is_run(path: Path) -> bool:
    return (path / HANDOFFS).is_dir()


def find_runs(root: Path) -> list[Path]:
    """``root`` itself if it is a run, else its child runs by name; a child this account
    may not look into is listed too, so its caller can say so for that run alone."""
    if is_run(root):
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if not p.is_symlink() and _maybe_run(p))


def _maybe_run(path: Path) -> bool:
    try:
        return is_run(path)
    except PermissionError:
        return path.is_dir()


def handoff_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, HANDOFFS, f"{validate_id(handoff_id)}.json")


def decision_path(run_dir: Path, handoff_id: str) -> Path:
    return inside(run_dir, DECISIONS, f"{validate_id(handoff_id)}.json")


def list_handoffs(run_dir: Path) -> list[HandoffRef]:
    if not (run_dir / HANDOFFS).is_dir():
        return []
    return [HandoffRef(str(run_dir), handoff_id) for handoff_id in handoff_ids_in(run_dir)]


def read_handoff_bytes(run_dir: Path, handoff_id: str, max_bytes: int = MAX_HANDOFF_BYTES) -> bytes:
    return read_bounded(handoff_path(run_dir, handoff_id), max_bytes)


class FilesystemStore:
    """Safe for many processes at once: exclusivity from ``os.link`` (first writer wins),
    sequence numbers from exclusive marker files, the audit chain from ``flock``."""

    run_noun = "run directory"

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = None if root is None else Path(root)

    def __enter__(self) -> FilesystemStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _dir(self, run: str) -> Path:
        if not isinstance(run, str) or not run:
            raise ValueError(f"not a run: {run!r}")
        return Path(run) if self.root is None else self.root / run

    def label(self) -> str:
        root = (self.root or Path.cwd()).absolute()
        return root.name or str(root)

    def run_name(self, run: str) -> str:
        return run_dir_name(self._dir(run))

    def run_label(self, run: str) -> str:
        return str(self._dir(run).absolute())

    def runs(self) -> list[str]:
        root = self.root or Path()
        if is_run(root):
            return ["."]
        return [path.name for path in find_runs(root)]

    def copy(self) -> FilesystemStore:
        """Itself: the store holds nothing but its root, so threads may share it."""
        return self

    def close(self) -> None:
        """Nothing to release: every call opens and closes its own files."""

    def exists(self, run: str) -> bool:
        return is_run(self._dir(run))

    def create(self, run: str) -> bool:
        """``mkdir`` of ``handoffs/`` without ``exist_ok`` succeeds for exactly one of
        several concurrent creators, so the one that says "new run" is never two."""
        run_dir = self._dir(run)
        if run_dir.exists() and not run_dir.is_dir():
            raise NotADirectoryError(f"{run_dir} is not a directory")
        try:
            (run_dir / HANDOFFS).mkdir(parents=True)
            made = True
        except FileExistsError:
            if not (run_dir / HANDOFFS).is_dir():
                raise
            made = False
        (run_dir / DECISIONS).mkdir(exist_ok=True)
        inside(run_dir, HANDOFFS, SEQ)
        return made

    def add_handoff(
        self,
        run: str,
        phase: str,
        envelope: Callable[[int, str], bytes],
        *,
        idempotency_key: str | None = None,
    ) -> StoredHandoff:
        run_dir = self._dir(run)
        self.create(run)
        key_mark: Path | None = None
        if idempotency_key is not None:
            digest = hashlib.sha256(idempotency_key.encode()).hexdigest()
            (run_dir / HANDOFFS / KEYS).mkdir(exist_ok=True)
            key_mark = inside(run_dir, HANDOFFS, KEYS, digest)
            known = self._keyed(key_mark)
            if known is not None:
                return known
        while True:
            seq = self._allocate_seq(run_dir)
            handoff_id = f"{seq:04d}-{phase}"
            if key_mark is not None:
                try:
                    exclusive_create(key_mark, handoff_id.encode())
                except FileExistsError:
                    known = self._keyed(key_mark)
                    if known is not None:
                        return known
                    raise
            data = envelope(seq, handoff_id)
            try:
                exclusive_create(handoff_path(run_dir, handoff_id), data)
            except FileExistsError:
                if key_mark is not None:
                    raise
                continue
            return StoredHandoff(handoff_id, seq, True)

    def _keyed(self, key_mark: Path) -> StoredHandoff | None:
        """The handoff an idempotency key already names, once it is published."""
        deadline = time.monotonic() + _KEY_SETTLE_S
        try:
            handoff_id = read_bounded(key_mark, 64).decode("ascii")
        except FileNotFoundError:
            return None
        validate_id(handoff_id)
        run_dir = key_mark.parents[2]
        while not handoff_path(run_dir, handoff_id).is_file():
            if time.monotonic() > deadline:
                raise FileNotFoundError(
                    f"idempotency key names {handoff_id}, which was never published"
                )
            time.sleep(0.01)
        return StoredHandoff(handoff_id, int(handoff_id.split("-", 1)[0]), False)

    @staticmethod
    def _allocate_seq(run_dir: Path) -> int:
        """Claimed with an exclusive marker file: of two submitters picking one number
        the loser moves on, so ids stay unique across phases without a lock."""
        marks = run_dir / HANDOFFS / SEQ
        marks.mkdir(parents=True, exist_ok=True)
        taken = {ref.seq for ref in list_handoffs(run_dir)}
        taken.update(int(m.name) for m in marks.iterdir() if m.name.isdigit())
        seq = max(taken, default=0) + 1
        while not reserve(marks / f"{seq:04d}"):
            seq += 1
        return seq

    def handoff_ids(self, run: str) -> list[str]:
        return [ref.id for ref in list_handoffs(self._dir(run))]

    def handoff_bytes(self, run: str, handoff_id: str, max_bytes: int) -> bytes:
        return read_bounded(handoff_path(self._dir(run), handoff_id), max_bytes)

    def handoff_sha256(self, run: str, handoff_id: str) -> str:
        """Hashed in chunks, refusing a symlink: the file may be too big to hold."""
        digest = hashlib.sha256()
        try:
            fd = os.open(handoff_path(self._dir(run), handoff_id), os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError:
            return ""
        return digest.hexdigest()

    def add_contract(
        self, run: str, schema_id: str, sha256: str, document: bytes, *, added: str
    ) -> bool:
        """In the run's ``contracts/`` folder (``fs_contracts``), the run made if new."""
        self.create(run)
        return fs_contracts.add_contract(self._dir(run), schema_id, sha256, document, added)

    def contracts(self, run: str) -> list[StoredContract]:
        return fs_contracts.contracts_in(self._dir(run))

    def contract_document(self, run: str, sha256: str) -> bytes | None:
        return fs_contracts.document(self._dir(run), sha256)

    def create_decision(
        self,
        run: str,
        handoff_id: str,
        principal: str | None,
        data: bytes,
        event: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Publish the decision file, then log it, under the log's ``flock``: a waiter
        that sees the file logs ``wait_returned`` only after this ``decision_written``. A
        crash in between leaves a decision without its event (``audit --verify`` reports
        it), never the reverse. A log that cannot be opened or locked in time must not
        stop a veto: the decision is published and the error says it was not logged."""
        run_dir = self._dir(run)
        (run_dir / DECISIONS).mkdir(exist_ok=True)
        target = self._decision_path(run_dir, handoff_id, principal)
        path = run_dir / AUDIT_FILE
        lock_timeout()  # a bad bound refuses the decision before anything is written
        try:
            fd = log_file.open_log(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        except OSError:
            _publish(target, handoff_id, data)  # a log made unusable must not stop a veto
            raise
        try:
            try:
                log_file.lock(fd, path)
            except LockTimeout:
                _publish(target, handoff_id, data)
                raise
            _publish(target, handoff_id, data)
            return _append_locked(fd, event)
        finally:
            os.close(fd)

    @staticmethod
    def _decision_path(run_dir: Path, handoff_id: str, principal: str | None) -> Path:
        if principal is None:
            return decision_path(run_dir, handoff_id)
        if not PRINCIPAL_PATTERN.match(principal):
            raise ValueError(f"not a principal name: {principal!r}")
        _handoff_folder(run_dir, DECISIONS, handoff_id)
        return inside(run_dir, DECISIONS, handoff_id, f"{principal}.json")

    def decision_records(self, run: str, handoff_id: str) -> dict[str | None, bytes]:
        """An unreadable unsigned record raises (it is the handoff's one decision); a
        principal's entry that is no regular file inside the run (a FIFO, a symlink,
        oversize) reads as empty bytes: junk that counts for nobody and blocks no other."""
        run_dir = self._dir(run)
        records: dict[str | None, bytes] = {}
        with contextlib.suppress(FileNotFoundError):
            records[None] = read_bounded(decision_path(run_dir, handoff_id), MAX_DECISION_BYTES)
        folder = inside(run_dir, DECISIONS, validate_id(handoff_id))
        if folder.is_dir():
            for entry in sorted(folder.iterdir()):
                name = entry.name.removesuffix(".json")
                if name != entry.name and PRINCIPAL_PATTERN.match(name):
                    data = _entry_bytes(run_dir, handoff_id, entry.name)
                    if data is not None:
                        records[name] = data
        return records

    def run_identity(self, run: str) -> str:
        """``DEV:INODE`` of the run folder, its own path not followed if a link."""
        path = self._dir(run)
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            raise RunReplaced(
                f"{path} is a symlink: wait on the run folder itself, never through a link "
                "that can be pointed at another (an old approved copy)"
            )
        return f"{info.st_dev}:{info.st_ino}"

    def decided_ids(self, run: str) -> list[str]:
        """Each ``ID.json`` and ``ID/`` of ``decisions/`` named by a valid id."""
        folder = self._dir(run) / DECISIONS
        found: set[str] = set()
        with (
            contextlib.suppress(FileNotFoundError, NotADirectoryError),
            os.scandir(folder) as entries,
        ):
            for entry in entries:
                stem = entry.name.removesuffix(".json")
                if ID_PATTERN.match(stem):
                    found.add(stem)
        return sorted(found, key=lambda hid: (int(hid.split("-", 1)[0]), hid))

    def set_aside_decision(self, run: str, handoff_id: str, principal: str) -> bool:
        """Renamed to a dot-name no reader lists: a record an agent planted must not keep
        a reviewer's veto out."""
        if not PRINCIPAL_PATTERN.match(principal):
            raise ValueError(f"not a principal name: {principal!r}")
        folder = self._dir(run) / DECISIONS / validate_id(handoff_id)
        try:
            if not stat.S_ISDIR(folder.lstat().st_mode):  # a link or file as the folder
                folder.rename(folder.with_name(f".{handoff_id}.{os.urandom(8).hex()}.junk"))
                return True
            junk = f".{principal}.json.{os.urandom(8).hex()}.junk"
            (folder / f"{principal}.json").rename(folder / junk)
        except FileNotFoundError:
            return False
        return True

    def veto_exposure(self, run: str) -> str | None:
        return fs_layout.veto_exposure(self._dir(run))

    def separate(self, run: str, pipeline_uid: int, reviewers_gid: int) -> bool:
        """Make the run's decisions readable but not writable by the pipeline's account
        (``handoff-gate init``, ``fs_layout``); ``False`` when it was separated already.
        No ``RunStore`` method: a database separates by its roles."""
        return fs_layout.separate(self._dir(run), pipeline_uid, reviewers_gid)

    def create_edit(self, run: str, handoff_id: str, data: bytes) -> str:
        """The handoff's folder is made as a decisions folder is (``_handoff_folder``), so
        another reviewer may add an edit too."""
        run_dir = self._dir(run)
        if (run_dir / fs_edits.EDITS).is_dir():
            _handoff_folder(run_dir, fs_edits.EDITS, handoff_id)
        return fs_edits.create_edit(run_dir, handoff_id, data)

    def edit_bytes(self, run: str, handoff_id: str, sha256: str, max_bytes: int) -> bytes:
        return fs_edits.read_edit(self._dir(run), handoff_id, sha256, max_bytes)

    def create_withdrawal(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        """In ``withdrawals/``, the pipeline's folder, not the reviewers' ``decisions/``:
        withdrawing is the producer's act."""
        try:
            return self._publish_logged(run, fs_withdrawals.publish, handoff_id, data, event)
        except FileExistsError as exc:
            raise WithdrawalExists(f"{handoff_id} is already withdrawn") from exc

    def withdrawal_record(self, run: str, handoff_id: str) -> bytes | None:
        return fs_withdrawals.read(self._dir(run), handoff_id)

    def create_delivery(
        self, run: str, handoff_id: str, data: bytes, event: Mapping[str, Any]
    ) -> dict[str, Any]:
        try:
            return self._publish_logged(run, fs_deliveries.publish, handoff_id, data, event)
        except FileExistsError as exc:
            raise DeliveryExists(f"{handoff_id} was delivered already") from exc

    def _publish_logged(
        self,
        run: str,
        publish: Callable[[Path, str, bytes], None],
        handoff_id: str,
        data: bytes,
        event: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Under the log's ``flock``, so a record and its event appear together."""
        run_dir = self._dir(run)
        path = run_dir / AUDIT_FILE
        lock_timeout()
        fd = log_file.open_log(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        try:
            log_file.lock(fd, path)
            publish(run_dir, handoff_id, data)
            return _append_locked(fd, event)
        finally:
            os.close(fd)

    def delivery_record(self, run: str, handoff_id: str) -> bytes | None:
        return fs_deliveries.read(self._dir(run), handoff_id)

    def append_event(self, run: str, event: Mapping[str, Any]) -> dict[str, Any]:
        path = self._dir(run) / AUDIT_FILE
        fd = log_file.open_log(path, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        try:
            log_file.lock(fd, path)
            return _append_locked(fd, event)
        finally:
            os.close(fd)

    def log_chunks(self, run: str) -> Iterator[bytes]:
        return log_file.chunks(self._dir(run) / AUDIT_FILE)

    def subscribe(
        self,
        run: str,
        handoff_id: str,
        wake: Callable[[], None],
        *,
        signed: bool,
        poll: bool = False,
    ) -> Subscription:
        """Imported here: only a wait that blocks loads watchfiles."""
        from handoff_gate.gates.store.fs_watch import DecisionWatch

        run_dir = self._dir(run)
        return DecisionWatch(
            run_dir,
            run_dir / DECISIONS,
            validate_id(handoff_id),
            wake,
            signed=signed,
            poll=poll,
        )

    def listing(self, run: str, handoff_ids: Collection[str] | None = None) -> list[ListedHandoff]:
        try:
            run_dir = self._dir(run)
        except ValueError:
            return []
        return list_run_dir(run_dir, handoff_ids)

    def watch(
        self,
        on_change: Callable[[Change | WatchLapse], None],
        stop: threading.Event,
        *,
        poll: bool = False,
    ) -> None:
        """One recursive watcher over the root; watchfiles is loaded only here, so a
        process that writes a record and exits (the hook) never loads it."""
        from handoff_gate.gates.store.fs_hints import watch_root

        watch_root((self.root or Path()).absolute(), on_change, stop, poll=poll)

    def waiting(self, run: str, handoff_id: str, started: str) -> AbstractContextManager[object]:
        return waiters.registered(self._dir(run), handoff_id, started)

    def waiters(
        self, run: str, handoff_ids: Collection[str] | None = None
    ) -> dict[str, tuple[WaiterRecord, ...]]:
        return waiters.waiters_in(self._dir(run), handoff_ids)


def _handoff_folder(run_dir: Path, parent: str, handoff_id: str) -> None:
    """Make sure ``decisions/ID/`` (or ``edits/ID/``) is a folder: anything else planted
    there is renamed to a dot-name rather than let it keep every signed record out."""
    folder = run_dir / parent / validate_id(handoff_id)
    for _ in range(3):
        try:
            folder.mkdir()
        except FileExistsError:
            if stat.S_ISDIR(folder.lstat().st_mode):
                return
            with contextlib.suppress(FileNotFoundError):
                folder.rename(folder.with_name(f".{handoff_id}.{os.urandom(8).hex()}.junk"))
            continue
        fs_layout.share_mode(folder)
        return
    raise DecisionExists(f"{handoff_id}: its {parent} folder keeps being replaced")


def _entry_bytes(run_dir: Path, handoff_id: str, name: str) -> bytes | None:
    """A principal's record; ``None``: gone since it was listed; empty: not readable."""
    try:
        return read_bounded(inside(run_dir, DECISIONS, handoff_id, name), MAX_DECISION_BYTES)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return b""


def _publish(target: Path, handoff_id: str, data: bytes) -> None:
    """Create the decision record exclusively: one writer per slot, ever."""
    target.parent.mkdir(exist_ok=True)
    try:
        exclusive_create(target, data)
    except FileExistsError as exc:
        raise DecisionExists(f"{handoff_id} is already decided") from exc


def _append_locked(fd: int, event: Mapping[str, Any]) -> dict[str, Any]:
    """Append one chained line to the ``flock``ed log; a torn last line (a writer killed
    mid-append) is closed with a newline first and stays for ``verify`` to report."""
    end = os.lseek(fd, 0, os.SEEK_END)
    last = log_file.last_line(fd, end)
    torn = end > 0 and os.pread(fd, 1, end - 1) != b"\n"
    line, record = chained_line(last, event)
    os.write(fd, (b"\n" if torn else b"") + line + b"\n")
    os.fsync(fd)
    return record
