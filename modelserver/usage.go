package modelserver

import (
	"bufio"
	"encoding/json"
	"net/url"
	"path"
	"strings"

	"github.com/swetouch/swetouch/result"
)

// Usage is what model calls cost, as the provider counted it.
type Usage = result.Tokens

// CallUsage reads one exchange's model and usage from its request and
// response, whichever provider's shape it has (Anthropic Messages,
// OpenAI Responses and chat completions, Gemini), whole or streamed: the
// largest count each field reaches across the answer's events (streamed
// counts are running totals).
func CallUsage(e Entry) (modelName string, u Usage) {
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(e.Request, &req)
	modelName = req.Model
	if modelName == "" && strings.Contains(e.Path, "/models/") {
		modelName, _, _ = strings.Cut(path.Base(e.Path), ":") // Gemini names it in the path
		if m, err := url.PathUnescape(modelName); err == nil {
			modelName = m
		}
	}
	u.Calls = 1
	for _, payload := range payloads(e.Response) {
		var v any
		if json.Unmarshal([]byte(payload), &v) == nil {
			walkUsage(v, &u)
		}
	}
	if u.Cached > u.Input {
		u.Input = u.Cached
	}
	return modelName, u
}

// payloads are an answer's JSON documents: its body, or each event of a
// server-sent stream.
func payloads(body string) []string {
	if !strings.Contains(body, "data:") || strings.HasPrefix(strings.TrimSpace(body), "{") || strings.HasPrefix(strings.TrimSpace(body), "[") {
		return []string{body}
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			out = append(out, strings.TrimSpace(d))
		}
	}
	return out
}

// walkUsage takes the usage counters anywhere in a document.
func walkUsage(v any, u *Usage) {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			walkUsage(x, u)
		}
	case map[string]any:
		for k, x := range v {
			switch k {
			case "usage", "usageMetadata":
				if m, ok := x.(map[string]any); ok {
					counters(m, u)
				}
			default:
				walkUsage(x, u)
			}
		}
	}
}

// counters reads one usage object: Anthropic input_tokens (with
// cache_read and cache_creation apart, added to the input), OpenAI
// input_tokens or prompt_tokens with their cached details, Gemini's
// promptTokenCount and cachedContentTokenCount.
func counters(m map[string]any, u *Usage) {
	n := func(keys ...string) int {
		best := 0
		for _, k := range keys {
			if f, ok := m[k].(float64); ok {
				best = max(best, int(f))
			}
		}
		return best
	}
	detail := func(obj, key string) int {
		if d, ok := m[obj].(map[string]any); ok {
			if f, ok := d[key].(float64); ok {
				return int(f)
			}
		}
		return 0
	}
	cacheRead := n("cache_read_input_tokens")
	input := n("input_tokens", "prompt_tokens", "promptTokenCount")
	if _, anthropic := m["cache_read_input_tokens"]; anthropic {
		input += cacheRead + n("cache_creation_input_tokens") // Anthropic's input excludes the cache
	}
	cached := max(cacheRead, detail("input_tokens_details", "cached_tokens"), detail("prompt_tokens_details", "cached_tokens"), n("cachedContentTokenCount"))
	u.Input = max(u.Input, input)
	u.Cached = max(u.Cached, cached)
	u.Output = max(u.Output, n("output_tokens", "completion_tokens", "candidatesTokenCount"))
}
