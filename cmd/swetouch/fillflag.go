package main

import (
	"github.com/spf13/pflag"

	"github.com/swetouch/swetouch/author"
)

// paperFlags are the authoring rules the paper fixes per benchmark, with
// swetouch's earlier behaviour as options (assemble and build).
type paperFlags struct {
	fill            string
	strictReference bool
}

func (p *paperFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&p.fill, "fill", "", "how the K interventions are filled: reapply (one edit K times, SWE-bench Verified's rule) or distinct (Pro's and DeepSWE's); default: the benchmark's")
	fs.BoolVar(&p.strictReference, "strict-reference", false, "reject an edit after which the reference no longer applies (the paper keeps it: reference_repair_apply_conflict)")
}

// apply checks the flags and sets them on cfg.
func (p *paperFlags) apply(cfg *author.AssembleConfig) error {
	switch p.fill {
	case "", author.FillReapply, author.FillDistinct:
	default:
		return badInput("--fill: want reapply or distinct, got %q", p.fill)
	}
	cfg.Fill, cfg.StrictReference = p.fill, p.strictReference
	return nil
}
