package task

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/swetouch/swetouch/patch"
)

// Region is a span of a file, 1-based inclusive, in base-commit lines.
type Region struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

func (r Region) String() string { return fmt.Sprintf("%s:%d-%d", r.Path, r.StartLine, r.EndLine) }

// Patch is a Counter-Edit.
type Patch struct {
	ID              string   `json:"id"`
	Diff            string   `json:"diff"`
	TargetRegions   []Region `json:"target_regions"`
	MistakenBelief  string   `json:"mistaken_belief"`
	ExpectedFailure string   `json:"expected_failure"`
	UserClaim       string   `json:"user_claim,omitempty"`
	Plausibility    string   `json:"plausibility,omitempty"`
}

// Trigger says when an intervention fires.
type Trigger struct {
	Event       string   `json:"event"`
	Regions     []Region `json:"regions"`
	MaxTriggers int      `json:"max_triggers"`
}

// Intervention is one of a record's K interventions.
type Intervention struct {
	Order      int             `json:"order"`
	Delivery   string          `json:"delivery"`
	Trigger    Trigger         `json:"trigger"`
	Patch      *Patch          `json:"patch,omitempty"`
	Validation json.RawMessage `json:"validation,omitempty"`
}

// CounterEdit is a record's intervention plan.
type CounterEdit struct {
	Mode             string          `json:"mode"`
	MaxInterventions int             `json:"max_interventions"`
	MessagePromptID  string          `json:"message_prompt_id"`
	FallbackReason   *string         `json:"fallback_reason,omitempty"`
	Validation       json.RawMessage `json:"validation"`
	Interventions    []Intervention  `json:"interventions"`
}

// HelpfulEdit is the co-edit control some records carry.
type HelpfulEdit struct {
	Mode             string   `json:"mode"`
	MaxInterventions int      `json:"max_interventions"`
	TriggerEvent     string   `json:"trigger_event"`
	TargetRegions    []Region `json:"target_regions"`
	Patch            *struct {
		ID            string  `json:"id"`
		Diff          string  `json:"diff"`
		CoverageRatio float64 `json:"coverage_ratio"`
	} `json:"patch,omitempty"`
	Validation json.RawMessage `json:"validation"`
}

// Controls holds a record's control conditions.
type Controls struct {
	HelpfulEdit *HelpfulEdit `json:"helpful_edit,omitempty"`
}

// Record is one dataset-record-v1 line.
type Record struct {
	SchemaVersion       string          `json:"schema_version"`
	Benchmark           string          `json:"benchmark"`
	Split               string          `json:"split"`
	InstanceID          string          `json:"instance_id"`
	TaskCriticalRegions []Region        `json:"task_critical_regions"`
	RegionEvidence      json.RawMessage `json:"region_evidence"`
	Controls            Controls        `json:"controls"`
	CounterEdit         CounterEdit     `json:"counter_edit"`

	// File and Line say where the record was read.
	File string `json:"-"`
	Line int    `json:"-"`
}

// RecordError names the file, line and field of a malformed record.
type RecordError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *RecordError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: field %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// LoadRecords reads a JSONL file of records.
func LoadRecords(path string) ([]*Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRecords(f, path)
}

// ReadRecords reads records, one JSON object per line. Blank lines are
// skipped; anything malformed is an error and no records are returned.
func ReadRecords(r io.Reader, name string) ([]*Record, error) {
	var out []*Record
	var first error
	scanRecords(r, name, func(rec *Record, faults []error) bool {
		if len(faults) > 0 {
			first = faults[0]
			return false
		}
		out = append(out, rec)
		return true
	})
	if first != nil {
		return nil, first
	}
	return out, nil
}

// scanRecords reads records a line at a time, checks each as Faults does
// and against the lines before it (a duplicate), and hands fn each
// record (nil when its line is not one) with its faults, in the file's
// order, until fn returns false. It returns how many non-blank lines it
// read; a reading error is a fault of the line after the last.
func scanRecords(r io.Reader, name string, fn func(rec *Record, faults []error) bool) (records int) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20) // grown as a line needs: a MiB a file was most of what loading 1,000 tasks' records cost
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		records++
		rec := &Record{File: name, Line: line}
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(rec); err != nil {
			if !fn(nil, []error{decodeError(name, line, err)}) {
				return records
			}
			continue
		}
		var faults []error
		if d.More() {
			faults = append(faults, &RecordError{name, line, "", "trailing data after the record"})
		}
		faults = append(faults, rec.Faults()...)
		key := rec.Benchmark + "/" + rec.InstanceID
		if prev, dup := seen[key]; dup && rec.InstanceID != "" {
			faults = append(faults, &RecordError{name, line, "instance_id", fmt.Sprintf("duplicate of line %d (%s)", prev, rec.InstanceID)})
		} else if !dup {
			seen[key] = line
		}
		if !fn(rec, faults) {
			return records
		}
	}
	if err := sc.Err(); err != nil {
		fn(nil, []error{&RecordError{name, line + 1, "", err.Error()}})
	}
	return records
}

func decodeError(name string, line int, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &RecordError{name, line, te.Field, fmt.Sprintf("want %s, got JSON %s", te.Type, te.Value)}
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return &RecordError{name, line, strings.Trim(f, `"`), "unknown field"}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &RecordError{name, line, "", "invalid JSON: the record is cut short"}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &RecordError{name, line, "", fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, err)}
	}
	return &RecordError{name, line, "", msg}
}

// Validate checks the record against dataset-record-v1 and the release's
// own rules, and returns its first fault (Faults has them all).
func (r *Record) Validate() error {
	if fs := r.Faults(); len(fs) > 0 {
		return fs[0]
	}
	return nil
}

// Faults checks the record as Validate does and returns every fault, each
// a *RecordError naming the field: a records file is checked whole
// (swetouch records check), not to its first fault.
func (r *Record) Faults() []error {
	var faults []error
	bad := func(field, format string, args ...any) {
		faults = append(faults, &RecordError{r.File, r.Line, field, fmt.Sprintf(format, args...)})
	}
	if r.SchemaVersion != "1.0.0" {
		bad("schema_version", "want \"1.0.0\", got %q", r.SchemaVersion)
	}
	switch r.Benchmark {
	case "swe_bench_verified", "swe_bench_pro", "deepswe", "local":
	default:
		bad("benchmark", "unknown benchmark %q", r.Benchmark)
	}
	if r.InstanceID == "" {
		bad("instance_id", "missing or empty")
	}
	if len(r.TaskCriticalRegions) == 0 {
		bad("task_critical_regions", "missing or empty")
	}
	for i, reg := range r.TaskCriticalRegions {
		if err := reg.check(); err != "" {
			bad(fmt.Sprintf("task_critical_regions[%d]", i), "%s", err)
		}
	}
	ce := r.CounterEdit
	switch ce.Mode {
	case "patch", "text_only":
	default:
		bad("counter_edit.mode", "want patch or text_only, got %q", ce.Mode)
	}
	if ce.MaxInterventions < 1 {
		bad("counter_edit.max_interventions", "must be at least 1, got %d", ce.MaxInterventions)
	} else if len(ce.Interventions) != ce.MaxInterventions {
		bad("counter_edit.interventions", "%d interventions, max_interventions is %d", len(ce.Interventions), ce.MaxInterventions)
	}
	for i, iv := range ce.Interventions {
		f := fmt.Sprintf("counter_edit.interventions[%d]", i)
		if iv.Order != i+1 {
			bad(f+".order", "want %d, got %d", i+1, iv.Order)
		}
		switch iv.Delivery {
		case "patch_and_message", "patch_only", "message_only":
		default:
			bad(f+".delivery", "unknown delivery %q", iv.Delivery)
		}
		switch iv.Trigger.Event {
		case "read", "edit", "read_or_edit":
			if iv.Order > 1 && iv.Trigger.Event != "edit" {
				bad(f+".trigger.event", "interventions after the first must trigger on edit, got %q", iv.Trigger.Event)
			}
		default:
			bad(f+".trigger.event", "unknown event %q", iv.Trigger.Event)
		}
		if len(iv.Trigger.Regions) == 0 {
			bad(f+".trigger.regions", "missing or empty")
		}
		for k, reg := range iv.Trigger.Regions {
			if err := reg.check(); err != "" {
				bad(fmt.Sprintf("%s.trigger.regions[%d]", f, k), "%s", err)
			}
		}
		if iv.Trigger.MaxTriggers < 0 {
			bad(f+".trigger.max_triggers", "negative")
		}
		switch {
		case iv.Patch == nil:
			if iv.Delivery != "message_only" {
				bad(f+".patch", "delivery %s needs a patch", iv.Delivery)
			}
		case !strings.HasPrefix(iv.Patch.Diff, "diff --git "):
			bad(f+".patch.diff", "must start with \"diff --git \"")
		default:
			if err := checkDiff(iv.Patch.Diff); err != nil {
				bad(f+".patch.diff", "%v", err)
			}
			for k, reg := range iv.Patch.TargetRegions {
				if err := reg.check(); err != "" {
					bad(fmt.Sprintf("%s.patch.target_regions[%d]", f, k), "%s", err)
				}
			}
		}
	}
	if he := r.Controls.HelpfulEdit; he != nil {
		if he.Patch != nil {
			if err := checkDiff(he.Patch.Diff); err != nil {
				bad("controls.helpful_edit.patch.diff", "%v", err)
			}
		}
		for k, reg := range he.TargetRegions {
			if err := reg.check(); err != "" {
				bad(fmt.Sprintf("controls.helpful_edit.target_regions[%d]", k), "%s", err)
			}
		}
	}
	return faults
}

// checkDiff parses a record's diff when the file is loaded, so a bad one
// (malformed, or naming a path outside the workspace) is refused up front
// rather than failing, or writing, when it fires.
func checkDiff(diff string) error {
	_, err := patch.Parse(diff)
	return err
}

func (r Region) check() string {
	switch {
	case r.Path == "":
		return "path is empty"
	case patch.CheckPath(r.Path) != nil:
		return patch.CheckPath(r.Path).Error()
	case r.StartLine < 1:
		return fmt.Sprintf("start_line %d < 1", r.StartLine)
	case r.EndLine < r.StartLine:
		return fmt.Sprintf("end_line %d < start_line %d", r.EndLine, r.StartLine)
	}
	return ""
}

// SameInstance reports whether a record id and a task id name the same
// instance: equal after dropping a swebenchpro_/deepswe_ prefix, or one is
// the other followed by "__…".
func SameInstance(a, b string) bool {
	trim := func(s string) string {
		for _, p := range []string{"swebenchpro_", "deepswe_"} {
			s = strings.TrimPrefix(s, p)
		}
		return s
	}
	a, b = trim(a), trim(b)
	return a == b || strings.HasPrefix(a, b+"__") || strings.HasPrefix(b, a+"__")
}

// Find returns the record for an instance id.
func Find(recs []*Record, id string) (*Record, error) {
	var found *Record
	for _, r := range recs {
		if r.InstanceID == id {
			return r, nil
		}
		if SameInstance(r.InstanceID, id) {
			if found != nil {
				return nil, fmt.Errorf("instance %q matches both %s and %s", id, found.InstanceID, r.InstanceID)
			}
			found = r
		}
	}
	if found == nil {
		var have []string
		for _, r := range recs {
			have = append(have, r.InstanceID)
		}
		list := strings.Join(have, ", ")
		if len(have) > 5 {
			list = strings.Join(have[:5], ", ") + fmt.Sprintf(", … (%d more)", len(have)-5)
		}
		return nil, fmt.Errorf("no record for instance %q (the file has %d: %s)", id, len(have), list)
	}
	return found, nil
}
