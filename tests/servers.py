"""Real servers for server-mode tests: a throw-away PostgreSQL cluster and a `chroma run` server.

A pytest plugin module (`pytest_plugins = ["tests.servers"]` in conftest.py). Both fixtures are
session-scoped, bind 127.0.0.1 only, keep their data in a temp dir and remove it at the end.

When a binary is missing the fixture skips with the reason, except when servers are required
(`MEMENGINE_REQUIRE_SERVERS=1` or `CI=true`): then it fails, so CI never goes green by skipping.
"""
from __future__ import annotations

import os
import pwd
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

# Debian keeps the server binaries off PATH, one directory per major version; 15 is the one we test on.
POSTGRES_BIN_ROOT = Path("/usr/lib/postgresql")
PREFERRED_POSTGRES_MAJOR = "15"
# PostgreSQL refuses to run as root; when the tests run as root the cluster runs as this user.
POSTGRES_OS_USER = "memengine-test"
TEST_DATABASE = "memengine_test"
START_TIMEOUT_S = 60


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "servers: needs a real PostgreSQL and/or Chroma server (tests/servers.py)")


def servers_required() -> bool:
    return os.environ.get("MEMENGINE_REQUIRE_SERVERS") == "1" or os.environ.get("CI", "").lower() == "true"


def unavailable(reason: str) -> None:
    """Skip, or fail when servers are required: a missing server must never pass silently in CI."""
    if servers_required():
        pytest.fail(f"{reason} (servers are required here: MEMENGINE_REQUIRE_SERVERS=1 or CI=true)", pytrace=False)
    pytest.skip(reason)


def _postgres_binary(name: str) -> str | None:
    majors = sorted((p.name for p in POSTGRES_BIN_ROOT.glob("*") if p.name.isdigit()), key=int, reverse=True)
    if PREFERRED_POSTGRES_MAJOR in majors:
        majors.remove(PREFERRED_POSTGRES_MAJOR)
        majors.insert(0, PREFERRED_POSTGRES_MAJOR)
    for major in majors:
        candidate = POSTGRES_BIN_ROOT / major / "bin" / name
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


def _as_postgres_user(command: list[str]) -> list[str]:
    """The command run as an unprivileged user when we are root (initdb and postgres refuse root)."""
    if os.geteuid() != 0:
        return command
    try:
        pwd.getpwnam(POSTGRES_OS_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", POSTGRES_OS_USER],
                       check=True, capture_output=True)
    return ["runuser", "-u", POSTGRES_OS_USER, "--", *command]


def _run(command: list[str], what: str, log: Path | None = None, cwd: Path | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        detail = done.stdout + done.stderr
        if log is not None and log.exists():
            detail += "\n--- server log ---\n" + log.read_text(errors="replace")[-4000:]
        pytest.fail(f"{what} failed ({done.returncode}): {' '.join(command)}\n{detail}", pytrace=False)


@pytest.fixture(scope="session")
def postgres_url(free_port) -> Iterator[str]:
    """postgresql://postgres@127.0.0.1:PORT/memengine_test on a fresh PostgreSQL cluster, removed afterwards."""
    binaries = {name: _postgres_binary(name) for name in ("initdb", "pg_ctl", "createdb")}
    missing = [name for name, path in binaries.items() if path is None]
    if missing:
        unavailable(f"PostgreSQL is not installed ({', '.join(missing)} not found; scripts/setup.sh installs it)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        unavailable("running as root, and `runuser` is missing to start PostgreSQL as an unprivileged user")
    root = Path(tempfile.mkdtemp(prefix="memengine-pg-"))
    data, log = root / "data", root / "server.log"
    port = free_port()
    started = False
    try:
        initdb = _as_postgres_user([binaries["initdb"], "-D", str(data), "--username=postgres", "--auth=trust",
                                    "--encoding=UTF8", "--no-instructions"])
        if os.geteuid() == 0:
            root.chmod(0o755)
            shutil.chown(root, POSTGRES_OS_USER, POSTGRES_OS_USER)
        _run(initdb, "initdb", cwd=root)
        # Loopback only, the socket in our own dir; durability is irrelevant for a throw-away cluster.
        options = (f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=50")
        started = True  # before the attempt: a start that timed out may still leave a server running
        _run(_as_postgres_user([binaries["pg_ctl"], "-D", str(data), "-l", str(log), "-o", options,
                                "-w", "-t", str(START_TIMEOUT_S), "start"]), "pg_ctl start", log=log, cwd=root)
        _run([binaries["createdb"], "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", TEST_DATABASE],
             "createdb", log=log)
        yield f"postgresql://postgres@127.0.0.1:{port}/{TEST_DATABASE}"
    finally:
        if started:
            subprocess.run(_as_postgres_user([binaries["pg_ctl"], "-D", str(data), "-m", "fast", "-w", "stop"]),
                           capture_output=True, cwd=root)
        shutil.rmtree(root, ignore_errors=True)


def _chroma_binary() -> str | None:
    beside_python = Path(sys.executable).with_name("chroma")
    return str(beside_python) if beside_python.exists() else shutil.which("chroma")


def _raise_open_file_limit() -> None:
    """Runs in the chroma child before exec: it keeps ~4 files open per collection (docs/scaling.md)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (OSError, ValueError):
            pass  # the inherited limit is still a working server, just a smaller one


def _heartbeat(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="session")
def chroma_server_url(free_port) -> Iterator[str]:
    """http://127.0.0.1:PORT of a `chroma run` with its data in a temp dir, stopped and removed afterwards."""
    binary = _chroma_binary()
    if binary is None:
        unavailable("the `chroma` command is not installed (pip install chromadb)")
    root = Path(tempfile.mkdtemp(prefix="memengine-chroma-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = root / "server.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([binary, "run", "--host", "127.0.0.1", "--port", str(port), "--path", str(root / "data")],
                                stdout=log, stderr=subprocess.STDOUT, cwd=root,
                                preexec_fn=_raise_open_file_limit)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _heartbeat(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chroma run did not answer its heartbeat on {url} (exit code {proc.poll()}):\n"
                            + log_path.read_text(errors="replace")[-4000:], pytrace=False)
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)
