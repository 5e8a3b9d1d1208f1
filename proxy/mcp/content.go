package mcp

// contentTypeText is the type of an MCP text content block.
const contentTypeText = "text"

// textContent is an MCP content block as far as the relay reads or writes
// one: its type and, for a text block, the text. Other fields
// (annotations, _meta) are not read; a block the relay adds has none.
// Our own two fields rather than mcp-go's TextContent, so the binary does
// not link mcp-go (and jsonschema-go, cast, uritemplate) for them; mcp-go
// stays the tests' peer. The field order is mcp-go's, so the block the
// relay appends is the same bytes.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}
