package task

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
)

// ParseResults reads per-test results as test.sh writes them: a JSON
// object of "pass", "fail", "error" or "skip" (SWE-bench's skipped tests,
// which count neither way) by test id, or JUnit XML (a
// testcase's id is its classname and name, joined by "::"; failure and
// skipped are fail, error is error).
func ParseResults(b []byte) (map[string]string, error) {
	b = bytes.TrimSpace(b)
	if bytes.HasPrefix(b, []byte("<")) {
		return parseJUnit(b)
	}
	var out map[string]string
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("want a JSON object of results or JUnit XML: %v", err)
	}
	for id, r := range out {
		if r != "pass" && r != "fail" && r != "error" && r != "skip" {
			return nil, fmt.Errorf("test %q: want pass, fail, error or skip, got %q", id, r)
		}
	}
	return out, nil
}

func parseJUnit(b []byte) (map[string]string, error) {
	type testcase struct {
		Class   string    `xml:"classname,attr"`
		Name    string    `xml:"name,attr"`
		Failure *struct{} `xml:"failure"`
		Error   *struct{} `xml:"error"`
		Skipped *struct{} `xml:"skipped"`
	}
	var doc struct {
		Cases  []testcase `xml:"testcase"`
		Suites []struct {
			Cases []testcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("JUnit XML: %v", err)
	}
	cases := doc.Cases
	for _, s := range doc.Suites {
		cases = append(cases, s.Cases...)
	}
	out := map[string]string{}
	for _, c := range cases {
		id := c.Name
		if c.Class != "" {
			id = c.Class + "::" + c.Name
		}
		switch {
		case c.Error != nil:
			out[id] = "error"
		case c.Failure != nil || c.Skipped != nil:
			out[id] = "fail"
		default:
			out[id] = "pass"
		}
	}
	return out, nil
}
