package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swetouch/swetouch/event"
	"github.com/swetouch/swetouch/shell"
)

// Mapping tells the classifier about a server's tools it does not know:
// for each tool name, the kind of action and which arguments hold the
// path and the lines.
type Mapping struct {
	Tools map[string]ToolRule `json:"tools"`
}

// ToolRule classifies one tool.
type ToolRule struct {
	Kind  event.Kind `json:"kind"`            // read, edit, test or run
	Path  string     `json:"path,omitempty"`  // argument holding the file
	Start string     `json:"start,omitempty"` // argument holding the first line
	End   string     `json:"end,omitempty"`   // argument holding the last line
}

// LoadMapping reads a mapping file.
func LoadMapping(path string) (*Mapping, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Mapping
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for name, r := range m.Tools {
		switch r.Kind {
		case event.Read, event.Edit, event.Test, event.Run:
		default:
			return nil, fmt.Errorf("%s: tools.%s.kind: want read, edit, test or run, got %q", path, name, r.Kind)
		}
	}
	return &m, nil
}

// Classifier turns tool calls into events, with paths made relative to
// the workspace root.
type Classifier struct {
	Root    string
	Mapping *Mapping
}

// Classify classifies a call of tool with its arguments: the user's
// mapping first, then the reference filesystem server's tools, then
// generic rules (a command argument is shell; a path argument, with line
// arguments if any, is a read).
func (c *Classifier) Classify(tool string, args map[string]any) []event.Event {
	a := mapArgs(args)
	return c.classify(tool, &a)
}

// classifyText is Classify for arguments as the call's JSON text.
func (c *Classifier) classifyText(tool string, text json.RawMessage) []event.Event {
	a := textArgs(text)
	return c.classify(tool, &a)
}

func (c *Classifier) classify(tool string, a *args) []event.Event {
	ev := func(k event.Kind, scopes ...event.Scope) event.Event {
		return event.Event{Kind: k, Source: "mcp", Actor: event.Agent, Tool: tool, Scopes: scopes}
	}
	if c.Mapping != nil {
		if r, ok := c.Mapping.Tools[tool]; ok {
			p := a.str(r.Path)
			if p == "" {
				return []event.Event{ev(r.Kind)}
			}
			start, end := a.num(r.Start), a.num(r.End)
			if start > 0 {
				return []event.Event{ev(r.Kind, event.LineScope(c.rel(p), start, max(end, start)))}
			}
			return []event.Event{ev(r.Kind, event.FileScope(c.rel(p)))}
		}
	}
	switch tool {
	case "read_text_file", "read_file":
		p := c.rel(a.str("path"))
		if head := a.num("head"); head > 0 {
			return []event.Event{ev(event.Read, event.LineScope(p, 1, head))}
		}
		if tail := a.num("tail"); tail > 0 {
			if n := c.lines(p); n > 0 {
				return []event.Event{ev(event.Read, event.LineScope(p, max(1, n-tail+1), n))}
			}
		}
		return []event.Event{ev(event.Read, event.FileScope(p))}
	case "read_media_file":
		return []event.Event{ev(event.Read, event.FileScope(c.rel(a.str("path"))))}
	case "read_multiple_files":
		var scopes []event.Scope
		for _, p := range a.strs("paths") {
			scopes = append(scopes, event.FileScope(c.rel(p)))
		}
		return []event.Event{ev(event.Read, scopes...)}
	case "write_file":
		return []event.Event{ev(event.Edit, event.FileScope(c.rel(a.str("path"))))}
	case "edit_file":
		if a.boolean("dryRun") {
			return []event.Event{ev(event.Read, event.FileScope(c.rel(a.str("path"))))}
		}
		return []event.Event{ev(event.Edit, event.FileScope(c.rel(a.str("path"))))}
	case "move_file":
		return []event.Event{ev(event.Edit, event.FileScope(c.rel(a.str("source"))), event.FileScope(c.rel(a.str("destination"))))}
	case "create_directory", "list_directory", "list_directory_with_sizes", "directory_tree", "search_files", "get_file_info", "list_allowed_directories":
		return []event.Event{ev(event.Run)}
	}
	for _, k := range []string{"command", "cmd"} {
		if cmd := a.str(k); cmd != "" {
			res := shell.Classify(cmd, shell.WithRoot(c.Root), shell.WithFiles(shell.DirSource(c.Root)))
			evs := res.Events(cmd)
			for i := range evs {
				evs[i].Source, evs[i].Actor, evs[i].Tool = "mcp", event.Agent, tool
			}
			return evs
		}
	}
	for _, k := range []string{"path", "file_path", "filePath", "file"} {
		if p := a.str(k); p != "" {
			start := max(a.num("line"), a.num("start_line"), a.num("startLine"))
			if start > 0 {
				end := max(a.num("end_line"), a.num("endLine"), start)
				return []event.Event{ev(event.Read, event.LineScope(c.rel(p), start, end))}
			}
			return []event.Event{ev(event.Read, event.FileScope(c.rel(p)))}
		}
	}
	return []event.Event{ev(event.Run)}
}

// ReadsOnly says whether a call of tool cannot change a file, by what
// the classifier knows for certain rather than guesses: a tool the
// mapping declares a read, or one of the reference filesystem server's
// reading tools. (The generic rules' reads, a tool with a path argument,
// are guesses: such a tool may write.)
func (c *Classifier) ReadsOnly(tool string) bool {
	if c.Mapping != nil {
		if r, ok := c.Mapping.Tools[tool]; ok {
			return r.Kind == event.Read
		}
	}
	switch tool {
	case "read_text_file", "read_file", "read_media_file", "read_multiple_files",
		"list_directory", "list_directory_with_sizes", "directory_tree", "search_files", "get_file_info", "list_allowed_directories":
		return true
	}
	return false
}

// rel makes a path workspace-relative when it lies in the workspace.
func (c *Classifier) rel(p string) string {
	if p == "" || !filepath.IsAbs(p) || c.Root == "" {
		return filepath.ToSlash(filepath.Clean(p))
	}
	// the root as given first; resolving its links costs a stat per
	// element, paid only for a path the root as given does not hold
	if r, err := filepath.Rel(c.Root, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	if r, err := filepath.Rel(evalSymlinks(c.Root), p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

func evalSymlinks(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// lines counts a workspace file's lines (0 when unknown).
func (c *Classifier) lines(rel string) int {
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Root, p)
	}
	b, err := os.ReadFile(p)
	if err != nil || len(b) == 0 {
		return 0
	}
	n := strings.Count(string(b), "\n")
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}
