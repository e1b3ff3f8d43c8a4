"""CLI: a full round trip in-process (sharing the session's model) plus the real `python -m memengine` entry."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adapters import cli
from engine import MemoryEngine

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def run(monkeypatch, embedder, capsys):
    """main(argv) in-process with the shared model; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(cli, "MemoryEngine", lambda settings, **kw: MemoryEngine(settings, embedder=embedder, **kw))

    def _run(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            import io

            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return _run


def test_round_trip(run, tmp_path):
    d1, d2 = str(tmp_path / "one"), str(tmp_path / "two")
    code, out, _ = run("--data-dir", d1, "--user", "alice", "ingest", "My project deadline is October 15.")
    assert code == 0 and out.startswith("created:")

    messages = tmp_path / "chat.txt"
    messages.write_text("I use Arch Linux.\n\nok thanks\nActually, the deadline moved to November 2.\n"
                        "I'm building a Next.js app.\n", encoding="utf-8")
    code, out, err = run("--data-dir", d1, "--user", "alice", "ingest", "--file", str(messages),
                         "--source-id", "chat.txt")
    assert code == 0, err
    assert "4 message(s) ingested" in err
    assert "1 ignored" in err and "1 superseded" in err
    assert "[" in err and "4/4" in err  # the progress bar

    # options also work after the subcommand
    code, out, _ = run("recall", "What OS does the user use?", "--data-dir", d1, "--user", "alice", "--json")
    assert code == 0
    res = json.loads(out)
    assert "Arch" in res["hits"][0]["memory"]["text"]
    assert res["hits"][0]["citation"]["source_id"] == "chat.txt:1"

    code, out, _ = run("--data-dir", d1, "--user", "alice", "recall", "When is the project deadline?")
    assert code == 0
    assert "November 2" in out and "October 15" not in out
    assert "semantic" in out and "source:" in out

    code, out, _ = run("--data-dir", d1, "--user", "alice", "recall", "When is the deadline?", "--history",
                       "--threshold", "0", "--top-k", "10", "--alpha", "0.9")
    assert code == 0 and "historical" in out and "October 15" in out

    code, out, _ = run("--data-dir", d1, "--user", "alice", "recall", "What is the user's favourite food?")
    assert code == 1 and "Nothing remembered" in out

    code, out, err = run("--data-dir", d1, "--user", "alice", "list")
    assert code == 0
    assert "3 of 3 active" in err
    assert "Arch" in out and "October 15" not in out

    code, out, _ = run("--data-dir", d1, "--user", "alice", "list", "--status", "superseded", "--json")
    assert code == 0
    old = [json.loads(line) for line in out.splitlines()]
    assert len(old) == 1 and "October 15" in old[0]["text"] and old[0]["replaced_by"]

    code, out, _ = run("--data-dir", d1, "--user", "alice", "history", str(old[0]["replaced_by"]), "--json")
    chain = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [m["id"] for m in chain] == [old[0]["id"], old[0]["replaced_by"]]

    code, out, _ = run("--data-dir", d1, "--user", "alice", "history", str(old[0]["id"]))
    assert code == 0 and "October 15" in out and "November 2" in out

    code, out, _ = run("--data-dir", d1, "--user", "bob", "list")
    assert code == 1  # nothing for bob

    code, _, err = run("--data-dir", d1, "--user", "bob", "history", str(old[0]["id"]))
    assert code == 1 and "not found" in err  # alice's memory is not bob's

    export = tmp_path / "alice.jsonl"
    code, _, err = run("--data-dir", d1, "--user", "alice", "export", str(export))
    assert code == 0 and "exported" in err
    lines = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines[0]["kind"] == "header"
    assert len(lines) > 1 and all(rec["user_id"] == "alice" for rec in lines[1:])

    code, out, _ = run("--data-dir", d2, "import", str(export))
    assert code == 0 and out.startswith("imported")
    code, out, _ = run("--data-dir", d2, "--user", "alice", "recall", "When is the project deadline?", "--json")
    assert code == 0 and "November 2" in json.loads(out)["hits"][0]["memory"]["text"]
    code, out, _ = run("--data-dir", d2, "--user", "alice", "list", "--status", "all", "--json")
    assert len(out.splitlines()) == 4

    code, out, _ = run("--data-dir", d2, "stats")
    assert code == 0 and json.loads(out)

    code, out, err = run("--data-dir", d2, "export", "-", "--all-users")
    assert code == 0 and len([line for line in out.splitlines() if line.strip()]) == len(lines)


def test_ingest_from_stdin_and_rejected_lines(run, tmp_path):
    d = str(tmp_path / "s")
    code, _, err = run("--data-dir", d, "ingest", "--file", "-", stdin="I use Arch Linux.\nI live in Berlin.\n")
    assert code == 0 and "2 message(s) ingested" in err
    code, _, err = run("--data-dir", d, "ingest", "--file", "-", stdin="I drink tea.\nbad \x00 line\n")
    assert code == 2
    assert "line 2:" in err and "1 line(s) rejected" in err
    code, out, _ = run("--data-dir", d, "list", "--json")
    assert len(out.splitlines()) == 3


@pytest.mark.parametrize(
    "argv, code, fragment",
    [
        (["ingest"], 2, "give either a message or --file"),
        (["ingest", "hi", "--file", "x.txt"], 2, "give either a message or --file"),
        (["ingest", "--file", "/nonexistent/file.txt"], 2, "no such file"),
        (["ingest", ""], 2, ""),
        (["import", "/nonexistent/file.jsonl"], 2, "no such file"),
        (["history", "999999"], 1, "not found"),
        (["list", "--limit", "0"], 2, "--limit"),
        (["recall", "anything"], 1, "Nothing remembered"),
        (["--user", "x\ty", "list"], 2, "user_id contains control characters"),
    ],
)
def test_exit_codes(run, tmp_path, argv, code, fragment):
    got, out, err = run("--data-dir", str(tmp_path / "e"), *argv)
    assert got == code, (out, err)
    assert fragment in out + err


def test_import_malformed_file_is_exit_2(run, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not json\n", encoding="utf-8")
    code, _, err = run("--data-dir", str(tmp_path / "i"), "import", str(bad))
    assert code == 2 and err.startswith("error:")


def test_argparse_usage_errors_exit_2(run, tmp_path):
    for argv in (["list", "--status", "gone"], ["bogus"], []):
        with pytest.raises(SystemExit) as e:
            run("--data-dir", str(tmp_path), *argv)
        assert e.value.code == 2


def test_store_in_use_exit_3(run, engine, tmp_path):
    # the `engine` fixture holds tmp_path open
    code, _, err = run("--data-dir", str(tmp_path), "list")
    assert code == 3
    assert "in use" in err.lower() or "another process" in err


def test_python_dash_m_engine_entry_point(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    d = str(tmp_path / "sub")
    p = subprocess.run([sys.executable, "-m", "memengine", "--data-dir", d, "ingest", "I use Arch Linux."],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("created:")
    p = subprocess.run([sys.executable, "-m", "memengine", "--data-dir", d, "list", "--status", "gone"],
                       cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 2 and "invalid choice" in p.stderr
    p = subprocess.run([sys.executable, "-m", "memengine", "--help"], cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=180)
    assert p.returncode == 0 and "serve" in p.stdout and "mcp" in p.stdout


def test_engine_package_does_not_import_adapters_frameworks():
    code = ("import sys, engine; "
            "bad = [m for m in ('fastapi', 'mcp', 'uvicorn', 'adapters') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("command", [["serve", "--port", "8765"], ["mcp"]])
def test_services_report_store_in_use_exit_3(engine, tmp_path, capsys, command):
    # The data-dir lock is taken before the model loads, so this fails fast and binds nothing.
    code = cli.main(["--data-dir", str(tmp_path), *command])
    assert code == 3
    assert "another process" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# Hostile or unlucky input: a clear message and exit 2, never a traceback
# ------------------------------------------------------------------------------------------

def test_unlucky_inputs_exit_2_with_a_clear_message(run, tmp_path):
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "memengine.db").write_bytes(b"this is not a database" * 100)
    a_file = tmp_path / "plain-file"
    a_file.write_text("x")
    store = str(tmp_path / "store")
    cases = [
        (["--data-dir", str(corrupt), "list"], "cannot be read"),
        (["--data-dir", store, "history", "99999999999999999999999"], "memory id"),
        # how Python hands over a non-UTF-8 byte (0xE9) of argv: a lone surrogate
        (["--data-dir", store, "--user", "caf\udce9", "list"], "not valid UTF-8"),
        (["--data-dir", store, "export", "/proc/version"], "/proc/version"),
        (["--data-dir", str(a_file), "list"], str(a_file)),
        (["--data-dir", store, "ingest", "I use Arch.", "--timestamp", "not-a-date"], "ISO 8601"),
    ]
    for argv, fragment in cases:
        try:
            code, _, err = run(*argv)
        except SystemExit as exc:  # argparse refuses with usage on stderr
            code, err = exc.code, ""
            fragment = ""
        assert code == 2, (argv, err)
        assert fragment in err, (argv, err)


def test_a_non_utf8_argument_from_the_shell_exits_2_without_a_traceback(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    p = subprocess.run([sys.executable, "-m", "memengine", "--data-dir", str(tmp_path / "s"), "--user", b"caf\xe9",
                        "stats"], cwd=REPO, env=env, capture_output=True, timeout=300)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 2 and "Traceback" not in err and "not valid UTF-8" in err, err


def test_serve_refuses_a_public_address_without_a_key(tmp_path, capsys, monkeypatch):
    code = cli.main(["--data-dir", str(tmp_path), "serve", "--host", "0.0.0.0", "--port", "8765"])
    assert code == 2
    err = capsys.readouterr().err
    assert "without an API key" in err and "--insecure-no-key" in err
    monkeypatch.setenv("MEMENGINE_API_KEY", "")
    code = cli.main(["--data-dir", str(tmp_path), "serve", "--port", "8765"])
    assert code == 2
    assert "empty" in capsys.readouterr().err
    assert not (tmp_path / "memengine.db").exists()  # refused before opening anything


def test_export_to_stdout_and_import_from_stdin_use_records(run, tmp_path):
    d1, d2 = str(tmp_path / "one"), str(tmp_path / "two")
    run("--data-dir", d1, "--user", "alice", "ingest", "I use Arch Linux.")
    code, out, err = run("--data-dir", d1, "--user", "alice", "export", "-")
    assert code == 0 and "exported 3 line(s)" in err  # header, message, memory
    assert [json.loads(line)["kind"] for line in out.splitlines()] == ["header", "message", "memory"]
    code, got, err = run("--data-dir", d2, "import", "-", stdin=out)
    assert code == 0 and got.startswith("imported 1 memory"), err
    code, _, err = run("--data-dir", d2, "import", "-", stdin=out)
    assert code == 2 and "UNIQUE constraint" not in err  # a re-import is named, not a raw SQL error
    code, _, err = run("--data-dir", str(tmp_path / "three"), "import", "-", stdin=out + "not json\n")
    assert code == 2 and "line 4: not valid JSON" in err
    code, out, _ = run("--data-dir", str(tmp_path / "three"), "list", "--status", "all")
    assert code == 1  # all or nothing: the good lines before the bad one were not imported


def test_context_profile_and_summarize(run, tmp_path):
    d = str(tmp_path / "chat")
    run("--data-dir", d, "--user", "alice", "ingest", "My project deadline is October 15.")
    code, out, _ = run("--data-dir", d, "--user", "alice", "ingest", "Actually, the deadline moved to November 2.",
                       "--json")
    new_id = json.loads(out)["memories"][0]["id"]

    code, out, _ = run("--data-dir", d, "--user", "alice", "context", "When is my project deadline?")
    assert code == 0 and f"[#{new_id}]" in out and "November 2" in out
    code, out, _ = run("--data-dir", d, "--user", "alice", "context", "When is my project deadline?", "--json",
                       "--budget", "400", "--history")
    ctx = json.loads(out)
    assert ctx["budget_chars"] == 400 and len(ctx["text"]) <= 400
    assert [i["status"] for i in ctx["items"]][:1] == ["current"]
    assert any(i["status"] == "old" and i["replaced_by_id"] == new_id for i in ctx["items"])
    code, out, _ = run("--data-dir", d, "--user", "alice", "context", "What is my favourite food?")
    assert code == 1 and "Nothing relevant is known" in out
    code, _, err = run("--data-dir", d, "--user", "alice", "context", "x", "--budget", "5")
    assert code == 2 and "budget_chars" in err

    code, out, _ = run("--data-dir", d, "--user", "alice", "profile")
    assert code == 0 and "November 2" in out
    code, out, _ = run("--data-dir", d, "--user", "alice", "profile", "--json", "--limit", "1")
    assert code == 0 and [i["memory_id"] for i in json.loads(out)["items"]] == [new_id]
    assert run("--data-dir", d, "--user", "bob", "profile")[0] == 1

    code, out, err = run("--data-dir", d, "--user", "alice", "summarize", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert len(summary["message_ids"]) == 2 and summary["memory"]["type"] == "event"
    assert "November 2" in summary["text"] and summary["by_llm"] is False
    # by default a session starts after the last summary: nothing new was said since
    code, _, err = run("--data-dir", d, "--user", "alice", "summarize")
    assert code == 1 and "nothing to summarize" in err
    code, out, _ = run("--data-dir", d, "--user", "alice", "summarize", "--since", "2000-01-01T00:00:00Z")
    assert code == 0 and out.startswith("Memory #")
    with pytest.raises(SystemExit) as e:
        run("--data-dir", d, "summarize", "--since", "yesterday")
    assert e.value.code == 2


def test_ingest_in_reply_to(run, tmp_path):
    d = str(tmp_path / "store")
    code, out, err = run("--data-dir", d, "ingest", "Ginger, a tabby.", "--in-reply-to", "What's your cat called?",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["memories"][0]["text"] == "Ginger, a tabby. (asked: What's User's cat called?)"
    lines = tmp_path / "lines.txt"
    lines.write_text("Ginger.\n", encoding="utf-8")
    code, _, err = run("--data-dir", d, "ingest", "--file", str(lines), "--in-reply-to", "What's your cat called?")
    assert code == 2 and "single message" in err
