package task

import "testing"

func TestPaperStepLimit(t *testing.T) {
	for _, tt := range []struct {
		benchmark string
		want      int
	}{{"swe_bench_verified", 100}, {"swe_bench_pro", 500}, {"deepswe", 500}, {"local", 0}, {"", 0}} {
		if got := (&Record{Benchmark: tt.benchmark}).PaperStepLimit(); got != tt.want {
			t.Errorf("%q: %d, want %d", tt.benchmark, got, tt.want)
		}
	}
}
