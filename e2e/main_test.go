package e2e_test

import (
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
)

// TestMain removes the built swetouch only when every test is done with it.
func TestMain(m *testing.M) { testbin.Main(m, nil) }

// examplesDir holds the example tasks, conversations and agents' plans.
const examplesDir = "../examples"
