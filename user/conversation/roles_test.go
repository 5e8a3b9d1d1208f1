package conversation_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/swetouch/swetouch/user"
	"github.com/swetouch/swetouch/user/conversation"
)

// TestFamily: a model's family by its name, a router's vendor/ prefix
// aside; a name no family holds is "".
func TestFamily(t *testing.T) {
	for name, want := range map[string]string{
		"claude-sonnet-4-5": "anthropic", "anthropic/claude-opus-4": "anthropic", "gpt-5": "openai", "o3-mini": "openai",
		"gemini-2.5-pro": "google", "openrouter/google/gemini-2.5-flash": "google", "Qwen3-Coder-480B": "qwen", "qwen2.5-coder": "qwen",
		"deepseek-v3": "deepseek", "meta-llama/Llama-3.3-70B": "meta", "gpt": "openai",
		"j": "", "o": "", "omni": "", "claudette": "",
	} {
		if got := conversation.Family(name); got != want {
			t.Errorf("Family(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestCheckFamilies (U11): a judge and a reviewer of one family are
// refused, as is a model whose family cannot be told unless it is named.
func TestCheckFamilies(t *testing.T) {
	var sf *conversation.SameFamilyError
	for _, c := range []struct {
		judge, jf, review, rf string
		ok                    bool
	}{
		{"claude-sonnet-4-5", "", "gpt-5", "", true},
		{"claude-sonnet-4-5", "", "claude-haiku-4-5", "", false},
		{"gpt-5", "", "o3", "", false},
		{"j", "", "gpt-5", "", false},
		{"j", "mistral", "gpt-5", "", true},
		{"j", "openai", "gpt-5", "", false},
		{"j", "a", "r", "b", true},
	} {
		err := conversation.CheckFamilies(c.judge, c.jf, c.review, c.rf)
		if (err == nil) != c.ok || err != nil && !errors.As(err, &sf) {
			t.Errorf("%s (%s) and %s (%s): %v, want ok %v", c.judge, c.jf, c.review, c.rf, err, c.ok)
		}
	}
}

// TestRolesSwap (U11): the judge and the reviewer change places between
// tasks, by the task's name (about half the tasks), and not with fixed
// roles; the conversation's result says who judged.
func TestRolesSwap(t *testing.T) {
	a, b := &user.Chat{URL: "http://127.0.0.1:9/v1", Model: "claude-sonnet-4-5"}, &user.Chat{URL: "http://127.0.0.1:9/v1", Model: "gpt-5"}
	m := conversation.Models{Judge: a, Review: b, SwapRoles: true}
	swapped := 0
	for i := range 100 {
		name := fmt.Sprintf("task-%d", i)
		got := m.ForTask(name)
		if got.Swapped != conversation.Swapped(name) || got.Swapped && (got.Judge != b || got.Review != a) || !got.Swapped && (got.Judge != a || got.Review != b) {
			t.Fatalf("%s: %+v", name, got)
		}
		if got.Swapped {
			swapped++
		}
		if fixed := (conversation.Models{Judge: a, Review: b}).ForTask(name); fixed.Swapped || fixed.Judge != a {
			t.Fatalf("%s: fixed roles swapped", name)
		}
	}
	if swapped < 35 || swapped > 65 {
		t.Errorf("%d of 100 tasks swapped: the roles do not change places between tasks", swapped)
	}
	pkg := cascade(t, "")
	for i := range 4 {
		name := fmt.Sprintf("task-%d", i)
		ct := &conversation.Task{Package: pkg, Chain: []string{"precise/none"}, Models: m.ForTask(name)}
		res := ct.User(t.TempDir(), "").Result()
		want := "claude-sonnet-4-5"
		if conversation.Swapped(name) {
			want = "gpt-5"
		}
		if res.Roles == nil || res.Roles.Judge != want || res.Roles.Swapped != conversation.Swapped(name) {
			t.Errorf("%s: roles %+v, want the judge %s", name, res.Roles, want)
		}
	}
}
