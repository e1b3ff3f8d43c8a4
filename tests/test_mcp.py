"""MCP server: `python -m memengine mcp` as a subprocess, every tool called through the SDK's stdio client."""
from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from adapters.mcp_server import _PrintsToStderr, build_server

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
TOOLS = {"remember", "recall", "context", "profile", "list_memories", "history", "forget", "restore", "erase"}


def _params(data_dir: Path) -> StdioServerParameters:
    env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO),
           "PYTHONUNBUFFERED": "1"}
    return StdioServerParameters(command=sys.executable, args=["-m", "memengine", "mcp", "--data-dir", str(data_dir)],
                                 env=env, cwd=str(REPO))


def _data(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def _round_trip(data_dir: Path, errlog) -> None:
    async with stdio_client(_params(data_dir), errlog=errlog) as (read, write):
        async with ClientSession(read, write) as s:
            init = await asyncio.wait_for(s.initialize(), timeout=120)
            assert init.server_info.name == "memengine"
            assert init.instructions and "recall" in init.instructions
            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) == TOOLS
            assert tools["recall"].input_schema["properties"]["top_k"]["default"] == 5
            assert all(t.description for t in tools.values())

            r = _data(await s.call_tool("remember", {"text": "My project deadline is October 15."}))
            assert r["status"] == "created"
            old_id = r["memories"][0]["id"]
            r = _data(await s.call_tool("remember", {"text": "Actually, the deadline moved to November 2."}))
            assert r["status"] == "superseded" and old_id in r["superseded_ids"]
            new_id = r["memories"][0]["id"]
            r = _data(await s.call_tool("remember", {"text": "I use Arch Linux.", "user_id": "bob"}))
            bob_id = r["memories"][0]["id"]
            assert _data(await s.call_tool("remember", {"text": "ok thanks"}))["status"] == "ignored"

            rec = _data(await s.call_tool("recall", {"query": "When is the project deadline?"}))
            assert rec["confidence"] in ("certain", "vague")
            top = rec["hits"][0]
            assert top["memory"]["id"] == new_id and "November 2" in top["memory"]["text"]
            assert {"score", "semantic", "lexical", "importance"} <= set(top)
            assert top["citation"]["source_message"] == "Actually, the deadline moved to November 2."
            assert "timestamp" in top["citation"] and "source_id" in top["citation"]
            assert not any("October 15" in h["memory"]["text"] for h in rec["hits"])

            unknown = _data(await s.call_tool("recall", {"query": "What is the user's favourite food?"}))
            assert unknown["hits"] == [] and unknown["confidence"] == "unknown"
            assert _data(await s.call_tool("recall", {"query": "What OS does the user use?"}))["hits"] == []
            bob = _data(await s.call_tool("recall", {"query": "What OS does the user use?", "user_id": "bob",
                                                     "top_k": 1}))
            assert len(bob["hits"]) == 1 and bob["hits"][0]["memory"]["id"] == bob_id

            ctx = _data(await s.call_tool("context", {"query": "When is the project deadline?"}))
            assert ctx["abstained"] is False and ctx["items"][0]["memory_id"] == new_id
            assert f"[#{new_id}]" in ctx["text"] and "November 2" in ctx["text"]
            none = _data(await s.call_tool("context", {"query": "What is my favourite food?", "user_id": "nobody"}))
            assert none["abstained"] is True and "Nothing relevant is known" in none["text"]
            assert (await s.call_tool("context", {"query": "x", "budget_chars": 10})).is_error
            prof = _data(await s.call_tool("profile", {"user_id": "bob"}))
            assert [i["memory_id"] for i in prof["items"]] == [bob_id] and "Arch Linux" in prof["greeting"]

            lst = _data(await s.call_tool("list_memories", {}))
            assert [m["id"] for m in lst["memories"]] == [new_id]
            both = _data(await s.call_tool("list_memories", {"include_superseded": True}))
            assert {m["id"] for m in both["memories"]} == {old_id, new_id}

            hist = _data(await s.call_tool("history", {"memory_id": new_id}))
            assert [m["id"] for m in hist["history"]] == [old_id, new_id]

            # another user's memory is "not found", and stays untouched
            for tool in ("history", "forget"):
                res = await s.call_tool(tool, {"memory_id": bob_id})
                assert res.is_error and "not found" in res.content[0].text
            assert (await s.call_tool("recall", {"query": "x", "top_k": 0})).is_error
            assert (await s.call_tool("remember", {"text": "bad \x00 byte"})).is_error

            gone = _data(await s.call_tool("forget", {"memory_id": new_id}))
            assert gone["status"] == "deleted" and gone["memory"]["status"] == "deleted"
            after = _data(await s.call_tool("recall", {"query": "When is the project deadline?"}))
            assert new_id not in [h["memory"]["id"] for h in after["hits"]]
            assert _data(await s.call_tool("list_memories", {"user_id": "bob"}))["count"] == 1


def test_mcp_stdio_round_trip(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="mcp.client.stdio")
    with open(tmp_path / "server-stderr.log", "w+", encoding="utf-8") as errlog:
        try:
            asyncio.run(asyncio.wait_for(_round_trip(tmp_path / "data", errlog), timeout=240))
        except BaseException:
            errlog.seek(0)
            print("server stderr:\n" + errlog.read()[-5000:])
            raise
    # The client logs every stdout line that is not JSON-RPC: there must be none.
    assert not [r for r in caplog.records if "parse" in r.getMessage().lower()], caplog.text


def test_tool_schemas_in_process(engine):
    server = build_server(engine)
    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    assert set(tools) == TOOLS
    assert tools["remember"].input_schema["required"] == ["text"]
    assert "in_reply_to" in tools["remember"].input_schema["properties"]
    said = asyncio.run(server.call_tool("remember", {"text": "Ginger, a tabby.", "in_reply_to": "What's your cat called?"}))
    assert "(asked: What's User's cat called?)" in str(said)
    assert tools["history"].input_schema["required"] == ["memory_id"]
    assert tools["list_memories"].input_schema["properties"]["include_superseded"]["default"] is False


@pytest.mark.parametrize("tool", ["history", "forget"])
def test_unknown_id_is_tool_error_in_process(engine, tool):
    from mcp.server.mcpserver.exceptions import ToolError

    server = build_server(engine)
    with pytest.raises(ToolError, match="not found"):
        asyncio.run(server.call_tool(tool, {"memory_id": 424242}))


def test_prints_while_serving_go_to_stderr(capsys):
    real = sys.stdout
    proxy = _PrintsToStderr(real)
    assert proxy.buffer is real.buffer  # the SDK still claims the real stdout for the protocol
    sys.stdout = proxy
    try:
        print("stray output from some library")
    finally:
        sys.stdout = real
    out, err = capsys.readouterr()
    assert out == "" and "stray output" in err


def test_lists_are_newest_first_in_process(engine):
    server = build_server(engine)
    ids = [engine.ingest(text, user_id="carol").memories[0].id
           for text in ("I use Arch Linux.", "I live in Lisbon.", "I have a dog named Rex.")]
    result = asyncio.run(server.call_tool("list_memories", {"user_id": "carol"}))
    data = result[1] if isinstance(result, tuple) else result
    data = data.structured_content if hasattr(data, "structured_content") else data
    assert [m["id"] for m in data["memories"]] == sorted(ids, reverse=True)
