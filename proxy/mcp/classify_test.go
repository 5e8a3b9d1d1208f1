package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/swetouch/swetouch/event"
)

func TestClassify(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.py"), []byte("1\n2\n3\n4\n5\n"), 0o644)
	mapping := filepath.Join(root, "map.json")
	os.WriteFile(mapping, []byte(`{"tools":{"open_lines":{"kind":"read","path":"file","start":"from","end":"to"},"run_tests":{"kind":"test"}}}`), 0o644)
	m, err := LoadMapping(mapping)
	if err != nil {
		t.Fatal(err)
	}
	c := &Classifier{Root: root, Mapping: m}
	abs := filepath.Join(root, "a.py")
	tests := []struct {
		tool string
		args map[string]any
		kind event.Kind
		want []event.Scope
	}{
		{"read_text_file", map[string]any{"path": abs, "head": 2.0}, event.Read, []event.Scope{event.LineScope("a.py", 1, 2)}},
		{"read_text_file", map[string]any{"path": abs, "tail": 2.0}, event.Read, []event.Scope{event.LineScope("a.py", 4, 5)}},
		{"read_file", map[string]any{"path": abs}, event.Read, []event.Scope{event.FileScope("a.py")}},
		{"read_multiple_files", map[string]any{"paths": []any{abs, filepath.Join(root, "b.py")}}, event.Read, []event.Scope{event.FileScope("a.py"), event.FileScope("b.py")}},
		{"write_file", map[string]any{"path": abs}, event.Edit, []event.Scope{event.FileScope("a.py")}},
		{"edit_file", map[string]any{"path": abs, "dryRun": true}, event.Read, []event.Scope{event.FileScope("a.py")}},
		{"edit_file", map[string]any{"path": abs}, event.Edit, []event.Scope{event.FileScope("a.py")}},
		{"move_file", map[string]any{"source": abs, "destination": filepath.Join(root, "c.py")}, event.Edit, []event.Scope{event.FileScope("a.py"), event.FileScope("c.py")}},
		{"create_directory", map[string]any{"path": filepath.Join(root, "d")}, event.Run, nil},
		{"run_command", map[string]any{"command": "sed -n 2,3p a.py"}, event.Read, []event.Scope{event.LineScope("a.py", 2, 3)}},
		{"goto", map[string]any{"file_path": "a.py", "line": 4.0}, event.Read, []event.Scope{event.LineScope("a.py", 4, 4)}},
		{"open_lines", map[string]any{"file": abs, "from": 2.0, "to": 3.0}, event.Read, []event.Scope{event.LineScope("a.py", 2, 3)}},
		{"run_tests", map[string]any{}, event.Test, nil},
		{"outside", map[string]any{"path": "/etc/hosts"}, event.Read, []event.Scope{event.FileScope("/etc/hosts")}},
		{"whatever", nil, event.Run, nil},
	}
	for _, tt := range tests {
		evs := c.Classify(tt.tool, tt.args)
		if len(evs) != 1 || evs[0].Kind != tt.kind || !reflect.DeepEqual(evs[0].Scopes, tt.want) {
			t.Errorf("%s %v: got %+v, want %s %v", tt.tool, tt.args, evs, tt.kind, tt.want)
		}
	}
	os.WriteFile(mapping, []byte(`{"tools":{"x":{"kind":"peek"}}}`), 0o644)
	if _, err := LoadMapping(mapping); err == nil {
		t.Error("a bad kind was accepted")
	}
}

// TestToolResultText: the hub is told a result's text blocks, in order,
// whatever other blocks (images, resources, annotations) sit between
// them, and whether the result is an error.
func TestToolResultText(t *testing.T) {
	for _, tt := range []struct {
		result, text string
		isError      bool
	}{
		{`{"content":[{"type":"text","text":"a\n"},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"text","text":"b","annotations":{"priority":1},"_meta":{"k":"v"}}]}`, "a\nb", false},
		{`{"content":[{"type":"resource","resource":{"uri":"file:///x","text":"not shown"}}],"isError":true}`, "", true},
		{`{"content":[],"structuredContent":{"x":1}}`, "", false},
	} {
		var res toolResult
		if err := json.Unmarshal([]byte(tt.result), &res); err != nil {
			t.Fatalf("%s: %v", tt.result, err)
		}
		if res.text() != tt.text || res.IsError != tt.isError {
			t.Errorf("%s: %q %v, want %q %v", tt.result, res.text(), res.IsError, tt.text, tt.isError)
		}
	}
}
