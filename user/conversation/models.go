package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/swetouch/swetouch/user"
)

// ModelReviewer is a Reviewer that asks a model (through a user.Writer:
// an OpenAI-compatible endpoint, or a recorded tape) with a pinned
// prompt; an answer that is not the JSON asked for is a failure of the
// reviewer's, never a verdict.
type ModelReviewer struct{ Writer user.Writer }

// Keeps asks the model whether the rewrite keeps the required behaviour.
func (m ModelReviewer) Keeps(ctx context.Context, r Review) (bool, string, error) {
	text, _, err := m.Writer.Write(ctx, reviewPrompt, reviewContext(r))
	if err != nil {
		return false, "", err
	}
	var a struct {
		Keeps *bool  `json:"keeps"`
		Why   string `json:"why"`
	}
	if err := decodeObject(text, &a); err != nil {
		return false, "", err
	}
	if a.Keeps == nil {
		return false, "", errors.New(`the reviewer's answer has no "keeps"`)
	}
	return *a.Keeps, a.Why, nil
}

// decodeObject reads the one JSON object a model was asked for, allowing
// a code fence or words around it.
func decodeObject(text string, v any) error {
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		return fmt.Errorf("the answer holds no JSON object: %.120q", text)
	}
	if err := json.Unmarshal([]byte(text[i:j+1]), v); err != nil {
		return fmt.Errorf("the answer's JSON: %v", err)
	}
	return nil
}
