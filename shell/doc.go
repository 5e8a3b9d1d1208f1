// Package shell classifies shell commands into scoped events: which files a
// command reads, edits or tests, with line ranges wherever the command (or its
// observed output) states them. Structure comes from the mvdan.cc/sh syntax
// tree, never from regular expressions over the raw text; input the parser
// rejects falls back to token rules and says so.
package shell
