package run_test

import (
	"testing"

	"github.com/swetouch/swetouch/internal/testsupport/testbin"
)

var binDir string

func TestMain(m *testing.M) { testbin.Main(m, &binDir) }

const example = "../examples/tasks/py-discount"
