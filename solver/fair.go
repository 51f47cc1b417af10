package solver

import (
	"github.com/flexd/flexd/solver/fairshare"
)

// Fair is the allocation layer of the Hadoop Fair Scheduler (HFS), the
// baseline FLEX was built to beat (FLEX sections 1 and 4; docs/fair-share.md):
// minima first, then the slack water-filled by weight, each job capped at its
// max, recomputed whenever a job completes. Result.FairShares carries
// Hadoop's own fair shares on the request's raw numbers.
type Fair struct{}

var _ Solver = Fair{}

// Name implements Solver.
func (Fair) Name() string { return "fair" }

// Solve implements Solver.
func (Fair) Solve(p Problem) (Result, error) {
	if err := checkJobLimit("fair", len(p.Jobs)); err != nil {
		return Result{}, err
	}
	in, err := newInstance(p)
	if err != nil {
		return Result{}, err
	}
	variant, _ := fairshare.ParseVariant(p.Options.FairVariant) // validated by newInstance
	n := len(in.jobs)
	jobs := make([]fairshare.Job, n)
	raw := make([]fairshare.Schedulable, n)
	for k, j := range in.jobs {
		jobs[k] = fairshare.Job{ID: j.ID, Min: in.min[k], Max: in.max[k], Weight: j.Weight, Submitted: j.Submitted, Work: j.Work}
		raw[k] = fairshare.Schedulable{Weight: j.Weight, Min: j.Min, Max: j.Max}
	}
	plan := fairshare.Plan(variant, jobs, in.slots, in.now)
	res := in.result("fair", "fair", plan, nil, false)
	shares := fairshare.Compute(variant, raw, in.slots)
	res.FairShares = make([]float64, n)
	for k, s := range shares {
		res.FairShares[in.orig[k]] = s
	}
	return res, nil
}
