package user

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/swetouch/swetouch/result"
)

// Writer writes the user's message from the pinned prompt and a context.
type Writer interface {
	// Write returns the model's text (raw, before any check) and the
	// model's name.
	Write(ctx context.Context, system, context string) (text, model string, err error)
}

// Chat is a Writer for any OpenAI-compatible chat-completions endpoint:
// URL is its base (http://127.0.0.1:8000/v1; the call goes to
// URL/chat/completions), temperature 0 and a fixed seed.
type Chat struct {
	URL, Model, Key string
	Client          *http.Client
	// Record, when set, gets every call: request, status and answer, one
	// JSON line each, so the session replays without the endpoint.
	Record io.Writer
	mu     sync.Mutex
	usage  Usage
}

// Usage is what the calls so far cost.
func (c *Chat) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.usage
}

// Call is one recorded call of a Writer.
type Call struct {
	Request  json.RawMessage `json:"request"`
	Status   int             `json:"status,omitempty"`
	Response string          `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
	Seconds  float64         `json:"seconds"`
}

// Usage is what the user's model cost a run (result.UserModelUsage in
// result.json).
type Usage = result.UserModelUsage

// countCall adds one call to u.
func countCall(u *Usage, c Call) {
	u.Calls++
	u.Seconds += c.Seconds
	var a struct {
		Usage struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal([]byte(c.Response), &a) == nil {
		u.PromptTokens += a.Usage.Prompt
		u.CompletionTokens += a.Usage.Completion
	}
}

// Metered is a Writer that says what it cost.
type Metered interface {
	Usage() Usage
}

func (c *Chat) Write(ctx context.Context, system, user string) (string, string, error) {
	req, _ := json.Marshal(map[string]any{
		"model": c.Model, "temperature": 0, "seed": 7, "max_tokens": 220,
		"messages": []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": user}},
	})
	call := Call{Request: req}
	start := time.Now()
	text, err := c.post(ctx, req, &call)
	call.Seconds = time.Since(start).Seconds()
	if err != nil {
		call.Error = err.Error()
	}
	c.record(call)
	return text, c.Model, err
}

func (c *Chat) post(ctx context.Context, body []byte, call *Call) (string, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.URL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	r.Header.Set("Content-Type", "application/json")
	if c.Key != "" {
		r.Header.Set("Authorization", "Bearer "+c.Key)
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(r)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	call.Status, call.Response = resp.StatusCode, string(b)
	if err != nil {
		return "", err
	}
	return chatText(resp.StatusCode, b)
}

// chatText is the text of a chat-completions answer.
func chatText(status int, b []byte) (string, error) {
	if status != http.StatusOK {
		return "", fmt.Errorf("chat completions: HTTP %d: %.200s", status, b)
	}
	var a struct {
		Choices []struct {
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return "", fmt.Errorf("chat completions: %v", err)
	}
	if len(a.Choices) == 0 || a.Choices[0].Message.Content == nil {
		return "", errors.New("chat completions: no message in the answer")
	}
	return *a.Choices[0].Message.Content, nil
}

func (c *Chat) record(call Call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	countCall(&c.usage, call)
	if c.Record == nil {
		return
	}
	b, _ := json.Marshal(call)
	c.Record.Write(append(b, '\n'))
}

// Tape is a Writer that answers from recorded calls, in order, without
// an endpoint: a session's messages replay as they were written.
type Tape struct {
	mu    sync.Mutex
	calls []Call
	model string
	usage Usage
}

// Usage is what the recorded calls served so far cost when they were made.
func (t *Tape) Usage() Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.usage
}

// LoadTape reads a recording of a Chat writer (its Record).
func LoadTape(path, model string) (*Tape, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &Tape{model: model}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 8<<20)
	for n := 1; sc.Scan(); n++ {
		var c Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		t.calls = append(t.calls, c)
	}
	return t, sc.Err()
}

func (t *Tape) Write(context.Context, string, string) (string, string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.calls) == 0 {
		return "", t.model, errors.New("the recording has no more calls")
	}
	c := t.calls[0]
	t.calls = t.calls[1:]
	countCall(&t.usage, c)
	var req struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(c.Request, &req) == nil && req.Model != "" {
		t.model = req.Model
	}
	if c.Error != "" {
		return "", t.model, errors.New(c.Error)
	}
	text, err := chatText(c.Status, []byte(c.Response))
	return text, t.model, err
}

// callTimeout bounds one call of the user's model: the agent waits for
// the message (the released harness let it block for up to 60 s and then
// lost the message, B14).
const callTimeout = 30 * time.Second
