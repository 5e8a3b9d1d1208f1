package replay

import (
	"os"
	"testing"

	"github.com/swetouch/swetouch/internal/testbin"
)

// TestMain removes the built swetouch when every test is done with it.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
