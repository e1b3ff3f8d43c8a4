"""The `memengine` command: `memengine <command>` or `python -m memengine <command>`.

It lives outside `engine/` so that the engine library imports nothing from `adapters/`
(the command line, REST and MCP are adapters over the engine's public API).
"""
