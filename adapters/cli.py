"""Command line: `memengine <command>` (or `python -m memengine <command>`).

Exit codes: 0 ok; 1 not found / nothing to show; 2 bad usage or input (the reason on stderr);
3 the data directory is in use by another process.
"""
from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from adapters.serialize import context_dict, ingest_dict, memory_dict, profile_dict, recall_dict, summary_dict
from adapters.validation import has_lone_surrogate, iso_timestamp
from engine import (
    EngineError,
    MemoryEngine,
    ModelMismatchError,
    NotFoundError,
    Settings,
    StoreInUseError,
)
from engine import llm as engine_llm
from engine.context import is_session_summary
from engine.limits import LIST_LIMIT_MAX, STATUS_FILTERS

EXIT_OK, EXIT_NOTHING, EXIT_USAGE, EXIT_IN_USE = 0, 1, 2, 3
BATCH = 32  # messages per ingest_many call when ingesting a file
MAX_ID = 2**63 - 1  # SQLite INTEGER: a larger id cannot exist


class UsageError(Exception):
    """Bad input detected by the CLI itself (exit 2)."""


# --------------------------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------------------------

def _common(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """--data-dir and --user, accepted before or after the subcommand. On subcommands the default is
    SUPPRESS so that an option given before the subcommand is not overwritten."""
    data_dir_default = None if top else argparse.SUPPRESS
    user_default = "default" if top else argparse.SUPPRESS
    parser.add_argument("--data-dir", metavar="DIR", default=data_dir_default,
                        help="store directory (default: $MEMENGINE_DATA_DIR or ./data)")
    parser.add_argument("--user", metavar="USER_ID", default=user_default, help='whose memories (default: "default")')


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="memengine",
        description="Local-first memory engine: ingest chat messages, recall facts with citations.",
        epilog="Exit codes: 0 ok, 1 not found / nothing, 2 bad usage or input, 3 data directory in use.",
    )
    _common(p, top=True)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def cmd(name: str, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        _common(sp, top=False)
        return sp

    sp = cmd("ingest", "ingest one message, or a file with one message per line")
    sp.add_argument("text", nargs="?", help="the message (omit when using --file)")
    sp.add_argument("--file", "-f", metavar="PATH", help='file with one message per line, "-" for stdin')
    sp.add_argument("--source-id", help="where the message(s) came from; files add :LINE")
    sp.add_argument("--speaker", help="who said it")
    sp.add_argument("--timestamp", type=_timestamp_arg, help="when it was said (ISO 8601), single message only")
    sp.add_argument("--in-reply-to", metavar="TEXT",
                    help="what the message answers (e.g. the bot's question), single message only")
    sp.add_argument("--json", action="store_true", help="print results as JSON (one object per line for files)")

    sp = cmd("recall", "recall memories relevant to a query")
    sp.add_argument("query")
    sp.add_argument("--top-k", type=int, help="at most this many hits")
    sp.add_argument("--threshold", type=float, help="minimum score for a hit")
    sp.add_argument("--alpha", type=float, help="semantic vs lexical weight (0..1)")
    sp.add_argument("--history", action="store_true", help="include superseded memories (marked historical)")
    sp.add_argument("--json", action="store_true", help="print the full result as JSON")

    sp = cmd("list", "list memories")
    sp.add_argument("--status", choices=STATUS_FILTERS, default="active")
    sp.add_argument("--limit", type=int, default=100)
    sp.add_argument("--offset", type=int, default=0)
    sp.add_argument("--all-users", action="store_true", help="every user's memories, not only --user's")
    sp.add_argument("--json", action="store_true", help="one JSON object per line")

    sp = cmd("history", "show the supersede chain of a memory, oldest first")
    sp.add_argument("id", type=_memory_id_arg)
    sp.add_argument("--json", action="store_true")

    sp = cmd("export", "export memories as JSON Lines")
    sp.add_argument("path", help='output file, "-" for stdout')
    sp.add_argument("--all-users", action="store_true", help="export every user, not only --user")

    sp = cmd("import", "import JSON Lines written by export")
    sp.add_argument("path", help='input file, "-" for stdin')

    sp = cmd("context", "the memories relevant to a question, as the block an LLM prompt gets")
    sp.add_argument("query")
    sp.add_argument("--budget", type=int, metavar="CHARS", help="at most this many characters (default from settings)")
    sp.add_argument("--history", action="store_true", help="also give superseded facts, marked as old")
    sp.add_argument("--json", action="store_true", help="print the block and its items as JSON")

    sp = cmd("profile", "the user's most important current facts and a greeting")
    sp.add_argument("--limit", type=int, default=5, help="at most this many facts (default 5)")
    sp.add_argument("--json", action="store_true")

    sp = cmd("summarize", "store one summary memory of a session's messages (the LLM writes it when "
                          "MEMENGINE_LLM_URL is set)")
    sp.add_argument("--since", type=_timestamp_arg, metavar="ISO",
                    help="the session's first moment (default: since the last summary, or every message)")
    sp.add_argument("--json", action="store_true")

    sp = cmd("restore", "undo the soft delete of a memory")
    sp.add_argument("id", type=_memory_id_arg)
    sp.add_argument("--json", action="store_true")

    sp = cmd("erase", "hard-delete one memory (and its source message when nothing else came from it)")
    sp.add_argument("id", type=_memory_id_arg)

    sp = cmd("erase-message", "hard-delete one logged message and every memory derived from it")
    sp.add_argument("id", type=_memory_id_arg, help="message id")

    cmd("rebuild", "rebuild the vector and lexical indexes from SQLite (no re-embedding)")
    cmd("reembed", "re-embed every memory with the configured model (after a model change)")
    cmd("stats", "print store statistics as JSON")

    sp = cmd("serve", "run the REST API with uvicorn")
    sp.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    sp.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sp.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"))
    sp.add_argument("--insecure-no-key", action="store_true",
                    help="allow binding a non-loopback address without MEMENGINE_API_KEY (anyone who can reach "
                         "the port can read and change every memory)")
    sp.add_argument("--workers", type=int, default=1,
                    help="uvicorn worker processes (more than 1 needs server mode: MEMENGINE_DATABASE_URL and "
                         "MEMENGINE_CHROMA_URL)")

    sp = cmd("migrate", "copy a store (memories, lineage, message log) into another, e.g. ./data -> PostgreSQL")
    sp.add_argument("--from", dest="source", required=True, metavar="DIR_OR_URL",
                    help="the store to copy: a data directory, or a postgresql:// URL")
    sp.add_argument("--to", dest="target", required=True, metavar="DIR_OR_URL",
                    help="the store to fill: a postgresql:// URL (with --chroma-url) or a data directory")
    sp.add_argument("--chroma-url", metavar="URL",
                    help="the Chroma server for a postgresql:// side (default: $MEMENGINE_CHROMA_URL)")

    cmd("mcp", "run the MCP server over stdio (for Claude Code, Claude Desktop, ...)")
    return p


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

def _timestamp_arg(value: str) -> str:
    try:
        return iso_timestamp(value)  # the same rule as REST
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _memory_id_arg(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a memory id is a whole number; got {value!r}") from None
    if not 1 <= n <= MAX_ID:
        raise argparse.ArgumentTypeError(f"a memory id is between 1 and {MAX_ID}; got {value}")
    return n


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


def _settings(args: argparse.Namespace) -> Settings:
    kwargs: dict[str, Any] = {}
    if args.data_dir is not None:
        kwargs["data_dir"] = Path(args.data_dir)
    return Settings(**kwargs)


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


def _short(text: str | None, n: int = 70) -> str:
    text = (text or "").replace("\n", " ")
    return text if len(text) <= n else text[: n - 1] + "…"


def _print_memory(m: Any, out: TextIO | None = None) -> None:
    out = out or sys.stdout
    lineage = ""
    if m.replaced_by is not None:
        lineage += f"  -> replaced by #{m.replaced_by}"
    if m.supersedes is not None:
        lineage += f"  (supersedes #{m.supersedes})"
    print(f"#{m.id:<6} {m.status:<10} {m.type:<14} {m.text}{lineage}", file=out)


class Progress:
    """A one-line textual progress bar on stderr."""

    def __init__(self, total: int, width: int = 30, stream: TextIO | None = None) -> None:
        self.total, self.width, self.stream = total, width, stream or sys.stderr
        self.start = time.monotonic()
        self.tty = self.stream.isatty()
        self._last = -1.0

    def update(self, done: int) -> None:
        now = time.monotonic()
        if not self.tty and done < self.total and now - self._last < 2.0:
            return  # in a log file, one line every 2 s is enough
        self._last = now
        frac = done / self.total if self.total else 1.0
        filled = int(self.width * frac)
        rate = done / max(now - self.start, 1e-9)
        line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} {frac:4.0%} {rate:6.1f} msg/s"
        self.stream.write(("\r" + line) if self.tty else (line + "\n"))
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _read_lines(path: str) -> list[tuple[int, str]]:
    if path == "-":
        raw = sys.stdin.read()
    else:
        try:
            raw = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageError(f"no such file: {path}") from None
        except UnicodeDecodeError as exc:
            raise UsageError(f"{path} is not UTF-8 text ({exc})") from None
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return [(n, line) for n, line in enumerate(raw.splitlines(), start=1) if line.strip()]


# --------------------------------------------------------------------------------------------
# Commands (each gets an open engine)
# --------------------------------------------------------------------------------------------

def cmd_ingest(eng: MemoryEngine, args: argparse.Namespace) -> int:
    if (args.text is None) == (args.file is None):
        raise UsageError("give either a message or --file PATH (\"-\" for stdin)")
    if args.text is not None:
        r = eng.ingest(args.text, user_id=args.user, source_id=args.source_id, timestamp=args.timestamp,
                       speaker=args.speaker, in_reply_to=args.in_reply_to)
        if args.json:
            print(json.dumps(ingest_dict(r), ensure_ascii=False))
        else:
            print(f"{r.status}: {r.message}")
        return EXIT_OK
    if args.timestamp:
        raise UsageError("--timestamp applies to a single message, not to --file")
    if args.in_reply_to:
        raise UsageError("--in-reply-to applies to a single message, not to --file")
    lines = _read_lines(args.file)
    if not lines:
        print("nothing to ingest: the input has no non-empty lines", file=sys.stderr)
        return EXIT_NOTHING
    counts: dict[str, int] = {}
    bad: list[tuple[int, str]] = []
    progress = Progress(len(lines))
    progress.update(0)

    def record(n: int, r: Any) -> None:
        counts[r.status] = counts.get(r.status, 0) + 1
        if args.json:
            print(json.dumps({"line": n, **ingest_dict(r)}, ensure_ascii=False))

    def message(n: int, text: str) -> dict[str, Any]:
        src = f"{args.source_id}:{n}" if args.source_id else None
        return {"text": text, "source_id": src, "speaker": args.speaker, "user_id": args.user}

    done = 0
    for i in range(0, len(lines), BATCH):
        batch = lines[i : i + BATCH]
        try:
            results = eng.ingest_many([message(n, t) for n, t in batch], user_id=args.user)
            for (n, _), r in zip(batch, results):
                record(n, r)
        except ValueError:
            # Find the offending line(s); the others still go in, one by one.
            for n, text in batch:
                m = message(n, text)
                try:
                    r = eng.ingest(m["text"], user_id=args.user, source_id=m["source_id"], speaker=args.speaker)
                except ValueError as exc:
                    bad.append((n, str(exc)))
                    continue
                record(n, r)
        done += len(batch)
        progress.update(done)
    progress.close()
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing stored"
    print(f"{len(lines) - len(bad)} message(s) ingested: {summary}", file=sys.stderr)
    for n, msg in bad:
        _err(f"line {n}: {msg}")
    if bad:
        _err(f"{len(bad)} line(s) rejected")
        return EXIT_USAGE
    return EXIT_OK


def cmd_recall(eng: MemoryEngine, args: argparse.Namespace) -> int:
    res = eng.recall(args.query, user_id=args.user, top_k=args.top_k, threshold=args.threshold, alpha=args.alpha,
                     include_history=True if args.history else None)
    if args.json:
        print(json.dumps(recall_dict(res), ensure_ascii=False, indent=2))
        return EXIT_OK if res.hits else EXIT_NOTHING
    if not res.hits:
        best = res.below_threshold[0].score if res.below_threshold else None
        hint = f" (best candidate scored {best:.3f} < threshold {res.threshold:.3f})" if best is not None else ""
        print(f"Nothing remembered about that{hint}. confidence: {res.confidence}")
        return EXIT_NOTHING
    print(f"confidence: {res.confidence}   threshold {res.threshold:.2f}  alpha {res.alpha:.2f}")
    for rank, h in enumerate(res.hits, start=1):
        m = h.memory
        flag = "  [historical" + (f", replaced by #{h.replaced_by_memory.id}: {h.replaced_by_memory.text}"
                                  if h.replaced_by_memory else "") + "]" if h.historical else ""
        print(f"{rank:>2}. #{m.id:<6} {h.score:.3f}  {m.text}{flag}")
        print(f"      semantic {h.semantic:.3f}  lexical {h.lexical:.3f}  importance {h.importance:.2f}")
        c = h.citation
        src = ", ".join(x for x in (c.source_id, c.timestamp, c.speaker) if x)
        print(f"      source: \"{_short(c.source_message)}\"" + (f" ({src})" if src else ""))
    return EXIT_OK


def cmd_list(eng: MemoryEngine, args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= LIST_LIMIT_MAX:
        raise UsageError(f"--limit must be between 1 and {LIST_LIMIT_MAX}")
    if args.offset < 0:
        raise UsageError("--offset must be >= 0")
    user = None if args.all_users else args.user
    mems = eng.list_memories(user_id=user, status=args.status, limit=args.limit, offset=args.offset)
    if args.json:
        for m in mems:
            print(json.dumps(memory_dict(m), ensure_ascii=False))
    else:
        total = eng.count_memories(user_id=user, status=args.status)
        for m in mems:
            _print_memory(m)
        who = "all users" if user is None else f"user {user!r}"
        print(f"{len(mems)} of {total} {args.status} memories ({who})", file=sys.stderr)
    return EXIT_OK if mems else EXIT_NOTHING


def cmd_history(eng: MemoryEngine, args: argparse.Namespace) -> int:
    try:
        chain = eng.history(args.id, user_id=args.user)
    except NotFoundError:
        _err(f"memory {args.id} not found for user {args.user!r}")
        return EXIT_NOTHING
    for m in chain:
        if args.json:
            print(json.dumps(memory_dict(m), ensure_ascii=False))
        else:
            when = m.created_at or ""
            print(f"{when:<26} ", end="")
            _print_memory(m)
    return EXIT_OK


def cmd_export(eng: MemoryEngine, args: argparse.Namespace) -> int:
    user = None if args.all_users else args.user
    if args.path == "-":
        n = 0
        for record in eng.export_records(user_id=user):
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
        sys.stdout.flush()
    else:
        parent = Path(args.path).resolve().parent
        if not parent.is_dir():
            raise UsageError(f"directory does not exist: {parent}")
        try:
            n = eng.export_jsonl(args.path, user_id=user)
        except OSError as exc:
            raise UsageError(f"cannot write {args.path}: {exc.strerror or exc}") from None
    print(f"exported {n} line(s)" + (f" to {args.path}" if args.path != "-" else ""), file=sys.stderr)
    return EXIT_OK if n else EXIT_NOTHING


def cmd_import(eng: MemoryEngine, args: argparse.Namespace) -> int:
    if args.path == "-":
        n = eng.import_records(_stdin_records())
    else:
        if not Path(args.path).is_file():
            raise UsageError(f"no such file: {args.path}")
        n = eng.import_jsonl(args.path)
    print(f"imported {n} memor{'y' if n == 1 else 'ies'}")
    return EXIT_OK if n else EXIT_NOTHING


def _stdin_records() -> Iterator[Any]:
    """The JSON lines on stdin as records; a line that is not JSON is named (exit 2)."""
    for n, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"line {n}: not valid JSON ({exc.msg})") from None


def cmd_context(eng: MemoryEngine, args: argparse.Namespace) -> int:
    ctx = eng.context(args.query, user_id=args.user, budget_chars=args.budget,
                      include_history=True if args.history else None)
    if args.json:
        print(json.dumps(context_dict(ctx), ensure_ascii=False, indent=2))
    else:
        print(ctx.text)
    return EXIT_NOTHING if ctx.abstained else EXIT_OK


def cmd_profile(eng: MemoryEngine, args: argparse.Namespace) -> int:
    prof = eng.profile(user_id=args.user, limit=args.limit)
    if args.json:
        print(json.dumps(profile_dict(prof), ensure_ascii=False, indent=2))
    else:
        print(prof.greeting)
        for item in prof.items:
            print(f"  #{item.memory_id:<6} {item.importance:.2f}  {item.text}")
    return EXIT_OK if prof.items else EXIT_NOTHING


def _last_summary_at(eng: MemoryEngine, user_id: str) -> str:
    """When the user's newest session summary was stored; the epoch when there is none."""
    newest = [m.created_at for m in eng.list_memories(user_id=user_id, status="all",
                                                      limit=max(1, min(eng.count_memories(user_id, "all"),
                                                                       LIST_LIMIT_MAX)))
              if is_session_summary(m)]
    return max(newest) if newest else "1970-01-01T00:00:00+00:00"


def cmd_summarize(eng: MemoryEngine, args: argparse.Namespace) -> int:
    since = args.since or _last_summary_at(eng, args.user)
    summary = eng.summarize_session(user_id=args.user, since=since,
                                    summarizer=engine_llm.client_from_settings(eng.settings))
    if args.json:
        print(json.dumps(summary_dict(summary), ensure_ascii=False, indent=2))
    elif summary.memory is None:
        print(f"nothing to summarize: no message since {since}", file=sys.stderr)
    else:
        by = "the LLM" if summary.by_llm else "the session's facts"
        print(f"Memory #{summary.memory.id} stored ({len(summary.message_ids)} message(s), written from {by}):")
        print(summary.memory.text)
    return EXIT_OK if summary.memory is not None else EXIT_NOTHING


def cmd_restore(eng: MemoryEngine, args: argparse.Namespace) -> int:
    memory = eng.restore(args.id, user_id=args.user)
    if args.json:
        print(json.dumps(memory_dict(memory), ensure_ascii=False))
    else:
        _print_memory(memory)
    return EXIT_OK


def cmd_erase(eng: MemoryEngine, args: argparse.Namespace) -> int:
    erased = eng.erase(args.id, user_id=args.user)
    print(f"erased memory #{args.id} ({erased['memories']} memory, {erased['messages']} message rows removed)")
    return EXIT_OK


def cmd_erase_message(eng: MemoryEngine, args: argparse.Namespace) -> int:
    erased = eng.erase_message(args.id, user_id=args.user)
    print(f"erased message #{args.id} and {erased['memories']} memor{'y' if erased['memories'] == 1 else 'ies'} "
          "derived from it")
    return EXIT_OK


def cmd_rebuild(eng: MemoryEngine, args: argparse.Namespace) -> int:
    report = eng.rebuild_index()
    print(f"rebuilt the index: {report['rebuilt_memories']} memories of {report['rebuilt_users']} user(s)")
    return EXIT_OK


def _reembed(settings: Settings) -> int:
    start = time.monotonic()
    try:
        with MemoryEngine(settings) as eng:
            n = eng.reembed()
        note = ""
    except ModelMismatchError:
        # Opening with migrate_model=True re-embeds the store with the configured model.
        with MemoryEngine(settings, migrate_model=True) as eng:
            n = eng.count_memories(status="all")
        note = f" (moved the store to {settings.model_name})"
    print(f"re-embedded {n} memor{'y' if n == 1 else 'ies'} in {time.monotonic() - start:.1f} s{note}")
    return EXIT_OK


def cmd_stats(eng: MemoryEngine, args: argparse.Namespace) -> int:
    print(json.dumps(eng.stats(), indent=2, default=str, ensure_ascii=False))
    return EXIT_OK


def cmd_serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from adapters.rest import create_app

    if not 0 < args.port < 65536:
        raise UsageError("--port must be between 1 and 65535")
    if settings.api_key is not None and not settings.api_key.strip():
        raise UsageError("MEMENGINE_API_KEY is set but empty; set a real key, or unset it to run without one")
    if not _is_loopback(args.host):
        if settings.api_key is None and not args.insecure_no_key:
            raise UsageError(
                f"refusing to serve on {args.host} without an API key: anyone who can reach it could read and "
                "change every memory. Set MEMENGINE_API_KEY, bind 127.0.0.1, or pass --insecure-no-key.")
        if settings.api_key is None:
            print(f"WARNING: serving on {args.host} WITHOUT AN API KEY (--insecure-no-key): anyone who can reach "
                  "this port can read and change every memory.", file=sys.stderr)
        print("note: only loopback Host names are answered; set MEMENGINE_ALLOWED_HOSTS to the name(s) clients "
              "use to reach this server.", file=sys.stderr)
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.workers > 1:
        return _serve_workers(settings, args)
    eng = MemoryEngine(settings)
    try:
        # The app's shutdown closes the engine: on SIGTERM uvicorn re-raises the signal after its
        # shutdown, so the `finally` below does not run then (it still covers a failed start).
        app = create_app(settings, engine=eng, close_engine=True)
        print(f"MemEngine REST API on http://{args.host}:{args.port}  (docs: /docs, data: {settings.data_dir})",
              file=sys.stderr)
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    finally:
        eng.close()
    return EXIT_OK


def worker_app() -> Any:
    """The app of one `serve --workers N` process: uvicorn imports this factory in every worker, which
    opens its own engine on the shared store from the MEMENGINE_* environment."""
    from adapters.rest import create_app

    return create_app(Settings())


def _serve_workers(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    if not (settings.database_url and settings.chroma_url):
        raise UsageError("--workers above 1 needs server mode (MEMENGINE_DATABASE_URL and MEMENGINE_CHROMA_URL): "
                         "an embedded store in ./data is owned by one process")
    # Worker processes read their settings from the environment; hand on what the options set.
    for name, value in settings.model_dump(exclude_none=True).items():
        os.environ[f"MEMENGINE_{name.upper()}"] = str(value)
    print(f"MemEngine REST API on http://{args.host}:{args.port}, {args.workers} workers, server mode",
          file=sys.stderr)
    # A worker busy embedding on a loaded machine can miss uvicorn's 5 s health ping; the supervisor
    # would then kill it and drop its requests in flight, so give it a minute.
    uvicorn.run("adapters.cli:worker_app", factory=True, host=args.host, port=args.port,
                workers=args.workers, log_level=args.log_level, timeout_worker_healthcheck=60)
    return EXIT_OK


def _store_settings(place: str, chroma_url: str | None, base: Settings) -> Settings:
    if place.startswith(("postgresql://", "postgres://")):
        chroma = chroma_url or base.chroma_url
        if not chroma:
            raise UsageError(f"{place.split('@')[-1]}: a PostgreSQL store needs --chroma-url (or MEMENGINE_CHROMA_URL)")
        return base.model_copy(update={"database_url": place, "chroma_url": chroma})
    return base.model_copy(update={"data_dir": Path(place), "database_url": None, "chroma_url": None})


def cmd_migrate(settings: Settings, args: argparse.Namespace) -> int:
    """Copy every message and memory (every status, lineage included) with export_records/import_records:
    one all-or-nothing import transaction on the target."""
    source_settings = _store_settings(args.source, args.chroma_url, settings)
    target_settings = _store_settings(args.target, args.chroma_url, settings)
    with MemoryEngine(source_settings) as source, MemoryEngine(target_settings, embedder=source.embedder) as target:
        if target.count_memories(status="all") or target.messages(limit=1):
            raise UsageError("the target store is not empty; migrate into a new database or directory")
        imported = target.import_records(source.export_records())
        report = {"memories": imported, "messages": target.stats()["messages"], "users": len(target.users()),
                  "index": target.verify_index()["ok"]}
    print(json.dumps(report))
    return EXIT_OK


def cmd_mcp(settings: Settings, args: argparse.Namespace) -> int:
    from adapters.mcp_server import serve_stdio

    return serve_stdio(settings)


ENGINE_COMMANDS = {
    "ingest": cmd_ingest, "recall": cmd_recall, "list": cmd_list, "history": cmd_history,
    "export": cmd_export, "import": cmd_import, "stats": cmd_stats,
    "context": cmd_context, "profile": cmd_profile, "summarize": cmd_summarize,
    "restore": cmd_restore, "erase": cmd_erase, "erase-message": cmd_erase_message, "rebuild": cmd_rebuild,
}
SERVICE_COMMANDS = {"serve": cmd_serve, "mcp": cmd_mcp, "migrate": cmd_migrate}


@contextlib.contextmanager
def _quiet_broken_pipe() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:  # e.g. `memengine list | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(EXIT_OK) from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 with usage on bad arguments
    # Bytes that are not UTF-8 reach Python as lone surrogates; no store can keep them.
    for name, value in vars(args).items():
        if isinstance(value, str) and has_lone_surrogate(value):
            _err(f"the {name.replace('_', '-')} argument is not valid UTF-8 text")
            return EXIT_USAGE
    # The model loader's progress bars are noise on a command line (and in server logs).
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        settings = _settings(args)
    except ValueError as exc:  # pydantic ValidationError: bad MEMENGINE_* variable or option
        _err(f"bad settings: {exc}")
        return EXIT_USAGE
    try:
        with _quiet_broken_pipe():
            if args.command in SERVICE_COMMANDS:
                return SERVICE_COMMANDS[args.command](settings, args)
            if args.command == "reembed":
                return _reembed(settings)
            with MemoryEngine(settings) as eng:
                return ENGINE_COMMANDS[args.command](eng, args)
    except StoreInUseError as exc:
        _err(f"{exc}\nThe data directory {settings.data_dir} is open in another process "
             "(a running `serve`, `mcp` or cockpit?). Stop it or use another --data-dir.")
        return EXIT_IN_USE
    except ModelMismatchError as exc:
        _err(f"{exc}\nThe store was built with another embedding model; set MEMENGINE_MODEL_NAME to it, "
             "or run `memengine reembed` to move the store to the configured model.")
        return EXIT_USAGE
    except NotFoundError as exc:
        _err(str(exc))
        return EXIT_NOTHING
    except (UsageError, ValueError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    except EngineError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except sqlite3.DatabaseError as exc:
        _err(f"the store in {settings.data_dir} cannot be read ({exc}); is it a memengine data directory? "
             "Restore it from an export or point --data-dir elsewhere.")
        return EXIT_USAGE
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        _err(f"{exc.strerror or exc}{where}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
