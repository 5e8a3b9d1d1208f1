package replay

import (
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
)

// TestMain removes the built swetouch when every test is done with it.
func TestMain(m *testing.M) { testbin.Main(m, nil) }
