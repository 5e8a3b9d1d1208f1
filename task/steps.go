package task

// paperStepLimits are the step budgets SWE-Touch ran each benchmark with
// (arXiv 2608.02499: mini-swe-agent, 100 steps on SWE-bench Verified,
// 500 on SWE-Bench Pro and DeepSWE), a step being a model call.
var paperStepLimits = map[string]int{
	"swe_bench_verified": 100,
	"swe_bench_pro":      500,
	"deepswe":            500,
}

// PaperStepLimit is the step budget the paper ran the record's benchmark
// with (0 for a benchmark it did not run, such as local records): a run
// of the released records gets it unless told otherwise.
func (r *Record) PaperStepLimit() int { return paperStepLimits[r.Benchmark] }
