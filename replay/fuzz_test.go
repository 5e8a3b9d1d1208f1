package replay

import (
	"strings"
	"testing"

	"github.com/swetouch/swetouch/trajectory"
)

// FuzzRead: the trajectory reader never panics, and accepts what it wrote
// with any truncation of the last line.
func FuzzRead(f *testing.F) {
	f.Add("{\"format\":\"swetouch-trajectory\",\"version\":1}\n{\"seq\":1,\"kind\":\"read\"}\n{\"seq\":2,\"ki")
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := trajectory.Read(strings.NewReader(s), "fuzz")
		if err == nil && tr == nil {
			t.Fatal("nil trajectory without error")
		}
	})
}
