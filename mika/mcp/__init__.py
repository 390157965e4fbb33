"""The MCP server face: a whole phone task, or the phone's own tools, offered to MCP clients
over stdio or streamable HTTP, built on the same assembly as every face."""
