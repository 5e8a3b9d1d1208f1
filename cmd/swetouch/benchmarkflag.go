package main

import (
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/policy"
)

// SWETouch is --benchmark's value for the SWE-Touch paper's rules.
const SWETouch = "swe-touch"

// benchmarkFlags are the delivery rules of run and eval: --benchmark
// swe-touch pins the paper's (reference matching, as the published
// numbers were made; the message sent whatever became of the edit; the
// Co-Edit once the agent has edited its region), --delivery retry keeps
// swetouch's earlier rule as an option.
type benchmarkFlags struct {
	benchmark, delivery string
}

func (b *benchmarkFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&b.benchmark, "benchmark", "", "swe-touch: the paper's rules (reference matching, the message always sent, the Co-Edit on an edit of its region); refuses flags that depart from them")
	fs.StringVar(&b.delivery, "delivery", "", "always (the paper's: the message goes even when the edit changes nothing, the round spent) or retry (no message, the round stays due)")
}

// rules checks the flags against the match mode and gives the delivery
// and the Co-Edit's trigger ("": the record's).
func (b *benchmarkFlags) rules(match policy.Match) (policy.Delivery, string, error) {
	d, err := policy.ParseDelivery(b.delivery)
	if err != nil {
		return "", "", badInput("--delivery: %v", err)
	}
	switch b.benchmark {
	case "":
		return d, "", nil
	case SWETouch:
		if match != "" && match != policy.Reference {
			return "", "", badInput("--benchmark swe-touch: --match %s departs from the paper (the published numbers used reference matching: later rounds fire on any edit of the region's file)", match)
		}
		if d != policy.Always {
			return "", "", badInput("--benchmark swe-touch: --delivery %s departs from the paper (it always sends the message)", d)
		}
		return d, policy.CoEditOnEdit, nil
	}
	return "", "", badInput("--benchmark: want swe-touch, got %q", b.benchmark)
}
