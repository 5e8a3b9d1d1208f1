package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swetouch/swetouch/audit/rubric"
	"github.com/swetouch/swetouch/modelserver"
	"github.com/swetouch/swetouch/result"
)

// TestAuditCmd (U14): swetouch audit answers the rubric for a run folder
// through the judge's endpoint, records the calls, and --replay answers
// the same offline; neither or both endpoints is bad input.
func TestAuditCmd(t *testing.T) {
	var items []map[string]any
	for _, it := range rubric.Items {
		items = append(items, map[string]any{"id": it.ID, "flag": it.ID == "evaluation_material"})
	}
	b, _ := json.Marshal(map[string]any{"items": items})
	srv := httptest.NewServer(modelserver.NewServer(&modelserver.Script{Final: string(b)}, nil))
	defer srv.Close()
	dir := t.TempDir()
	no := false
	res, _ := json.Marshal(result.Run{Task: "t", Resolved: &no})
	os.WriteFile(filepath.Join(dir, result.File), res, 0o644)
	var out1, out2, errb bytes.Buffer
	if code := execute([]string{"audit", dir, "--judge-model-url", srv.URL + "/v1", "--judge-model", "gpt-5"}, nil, &out1, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	srv.Close()
	if code := execute([]string{"audit", dir, "--replay"}, nil, &out2, &errb); code != 0 || out1.String() != out2.String() {
		t.Errorf("replay exit %d: %q against %q: %s", code, out2.String(), out1.String(), errb.String())
	}
	if !strings.Contains(out1.String(), "flagged [evaluation_material], no mechanical flag for [evaluation_material]; terminal") {
		t.Errorf("%s", out1.String())
	}
	if _, err := os.Stat(filepath.Join(dir, rubric.File)); err != nil {
		t.Error(err)
	}
	errb.Reset()
	if code := execute([]string{"audit", dir}, nil, &out1, &errb); code != 2 || !strings.Contains(errb.String(), "--replay") {
		t.Errorf("no endpoint: exit %d %s", code, errb.String())
	}
}
