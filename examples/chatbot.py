"""A terminal chatbot that remembers, using only memengine's public API.

    python examples/chatbot.py --data-dir data --user alice

Each turn: recall the context for the message, reply (from the LLM at MEMENGINE_LLM_URL with the
context in its prompt, or a template reply built from the context when no URL is set; then nothing
leaves the machine), and only then remember the message. /quit (or end of input) writes a session
summary. Commands: /memories, /categories, /forget, /help, /quit.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout without installing

from engine import ChatClient, EngineError, LLMError, MemoryEngine, Settings  # noqa: E402
from engine.llm import build_prompt, template_reply  # noqa: E402

HELP = """Commands:
  /memories    every memory, current and old
  /categories  current memories grouped by type
  /forget      delete ALL your memories and messages (asks first)
  /help        this list
  /quit        save a session summary and exit"""


def show_memories(eng: MemoryEngine, user: str) -> None:
    rows = [m for m in eng.list_memories(user, status="all", limit=10_000) if m.status != "deleted"]
    for m in sorted(rows, key=lambda m: (m.status != "active", m.id)):
        status = "Current" if m.status == "active" else f"Old (replaced by #{m.replaced_by})"
        print(f"  #{m.id:<4} {m.text:<50} {m.type:<15} {status:<24} {m.created_at[:19]}")
    old = sum(m.status != "active" for m in rows)
    print(f"  {len(rows) - old} current | {old} old | {len(rows)} total")


def show_categories(eng: MemoryEngine, user: str) -> None:
    groups: dict[str, list[str]] = {}
    for m in eng.list_memories(user, limit=10_000):
        groups.setdefault(m.type, []).append(f"{m.text} [#{m.id}]")
    for kind in sorted(groups):
        print(f"  {kind}: " + "; ".join(groups[kind]))
    if not groups:
        print("  (no memories yet)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data", help="where the memory store lives")
    parser.add_argument("--user", default="default", help="whose memories to use")
    args = parser.parse_args(argv)

    settings = Settings(data_dir=Path(args.data_dir))
    client = (ChatClient(settings.llm_url, settings.llm_model, settings.llm_timeout_s, settings.llm_api_key)
              if settings.llm_url else None)
    with MemoryEngine(settings) as eng:
        print(eng.profile(args.user).greeting)
        print(f"(replies from {client.model} at {client.endpoint})" if client else
              "(no MEMENGINE_LLM_URL: template replies, nothing leaves this machine)")
        session_ids: list[int] = []
        history: list[dict[str, str]] = []
        asked: str | None = None  # the LLM's last reply: what the user's next message may answer
        while True:
            try:
                text = input("You: ").strip()
            except EOFError:
                print()
                break
            if not text:
                continue
            if text == "/quit":
                break
            if text == "/help":
                print(HELP)
            elif text == "/memories":
                show_memories(eng, args.user)
            elif text == "/categories":
                show_categories(eng, args.user)
            elif text == "/forget":
                n = eng.count_memories(args.user, status="all")
                answer = input(f"Delete ALL {n} memories and every message of {args.user!r}, for good? [y/N] ")
                if answer.strip().lower() == "y":
                    counts = eng.forget_user(args.user)
                    session_ids.clear()
                    print(f"Forgot {counts['memories']} memories and {counts['messages']} messages.")
                else:
                    print("Nothing deleted.")
            elif text.startswith("/"):
                print(f"Unknown command {text.split()[0]}.\n{HELP}")
            else:
                try:
                    ctx = eng.context(text, user_id=args.user)
                except (ValueError, EngineError) as exc:
                    print(f"(cannot use that message: {exc})")
                    continue
                reply = from_llm = None
                if client is not None:
                    try:
                        print("AI: ", end="", flush=True)
                        pieces = []
                        for piece in client.stream(build_prompt(text, ctx, history=history[-12:])):
                            pieces.append(piece)
                            print(piece, end="", flush=True)
                        print()
                        reply = from_llm = "".join(pieces)
                    except LLMError as exc:
                        print(f"\n(LLM failed: {exc}; answering from memory instead)")
                if reply is None:
                    reply = template_reply(ctx)
                    print(f"AI: {reply}")
                history += [{"role": "user", "content": text}, {"role": "assistant", "content": reply}]
                # After the reply, never before; with the question it may answer ("Where are you based?"
                # before "Berlin"). A template reply asks nothing.
                result = eng.ingest(text, user_id=args.user, speaker="user", in_reply_to=asked)
                asked = from_llm
                if result.message_id is not None:
                    session_ids.append(result.message_id)
                if result.status != "ignored":
                    print(f"  ✦ memory: {result.status}: " + "; ".join(m.text for m in result.memories))
        if session_ids:
            summary = eng.summarize_session(args.user, session_ids, summarizer=client)
            print(f"Session summary saved as memory #{summary.memory.id}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
