"""Ways into the memory engine from outside Python: a REST API, an MCP server and a command line.

Nothing in `engine/` imports from here; these modules import only the public `engine` API.
`adapters.rest` needs fastapi, `adapters.mcp_server` needs mcp; `adapters.cli` imports them lazily.
"""

__all__ = ["cli", "mcp_server", "rest"]
