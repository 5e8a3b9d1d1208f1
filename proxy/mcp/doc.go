// Package mcp is the MCP relay: a transparent proxy in front of a stdio
// MCP server (and, later, a streamable HTTP one) that decodes only
// tools/call and its result. Each tool call is classified into scoped
// events and reported to the session hub; a user message comes back as an
// extra text block of the tool's result.
package mcp
