package conversation

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// families are the model families by the name's first word, as a
// provider spells its models: UserSWE's Judge and Reviewer must be of
// different families (U11), so that one family's blind spot is not
// reviewed by itself.
var families = []struct{ prefix, family string }{
	{"claude", "anthropic"},
	{"gpt", "openai"}, {"chatgpt", "openai"}, {"o1", "openai"}, {"o3", "openai"}, {"o4", "openai"}, {"codex", "openai"},
	{"gemini", "google"}, {"gemma", "google"},
	{"llama", "meta"}, {"meta-llama", "meta"},
	{"qwen", "qwen"}, {"qwq", "qwen"},
	{"mistral", "mistral"}, {"mixtral", "mistral"}, {"codestral", "mistral"}, {"devstral", "mistral"}, {"magistral", "mistral"},
	{"deepseek", "deepseek"},
	{"grok", "xai"},
	{"kimi", "moonshot"}, {"moonshot", "moonshot"},
	{"glm", "zhipu"},
	{"command", "cohere"},
	{"phi", "microsoft"},
}

// Family is the model family of a model's name ("" when not known): its
// last path part (a router's "vendor/model") read by its first word.
func Family(model string) string {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, f := range families {
		if name == f.prefix || strings.HasPrefix(name, f.prefix+"-") || strings.HasPrefix(name, f.prefix+".") ||
			strings.HasPrefix(name, f.prefix+":") || strings.HasPrefix(name, f.prefix) && len(name) > len(f.prefix) && isDigit(name[len(f.prefix)]) {
			return f.family
		}
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// SameFamilyError is a Judge and a Reviewer of one model family, or of a
// family that cannot be told: refused, since the paper's review is one
// family's check of another's decision.
type SameFamilyError struct {
	Judge, Reviewer             string // the models' names
	JudgeFamily, ReviewerFamily string
}

func (e *SameFamilyError) Error() string {
	switch {
	case e.JudgeFamily == "":
		return fmt.Sprintf("cannot tell the family of the judge's model %q: name it (--judge-family)", e.Judge)
	case e.ReviewerFamily == "":
		return fmt.Sprintf("cannot tell the family of the reviewer's model %q: name it (--reviewer-family)", e.Reviewer)
	}
	return fmt.Sprintf("the judge (%s) and the reviewer (%s) are both of the %s family: UserSWE's reviewer is of another family than its judge (U11)", e.Judge, e.Reviewer, e.JudgeFamily)
}

// CheckFamilies refuses a Judge and Reviewer of one family (or of one
// that cannot be told); a family given ("" for none) stands for the
// model name's.
func CheckFamilies(judge, judgeFamily, reviewer, reviewerFamily string) error {
	if judgeFamily == "" {
		judgeFamily = Family(judge)
	}
	if reviewerFamily == "" {
		reviewerFamily = Family(reviewer)
	}
	if judgeFamily == "" || reviewerFamily == "" || strings.EqualFold(judgeFamily, reviewerFamily) {
		return &SameFamilyError{Judge: judge, Reviewer: reviewer, JudgeFamily: judgeFamily, ReviewerFamily: reviewerFamily}
	}
	return nil
}

// Swapped reports whether a task's Judge and Reviewer swap roles: they
// do between tasks (U11), by the task's name, so every agent on a task
// meets the same judge, and a run of one task agrees with the eval
// that holds it.
func Swapped(task string) bool {
	h := fnv.New32a()
	h.Write([]byte(task))
	return h.Sum32()%2 == 1
}

// ForTask are the models for one task: with SwapRoles, the judge and
// the reviewer change places on the tasks Swapped names.
func (m Models) ForTask(task string) Models {
	if m.SwapRoles && m.Judge != nil && m.Review != nil && Swapped(task) {
		m.Judge, m.Review = m.Review, m.Judge
		m.Swapped = true
	}
	return m
}
