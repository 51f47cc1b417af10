package epoch

import (
	"fmt"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// Decider decides epochs with a chosen set of policies. Its zero value uses
// the solver's registry; the simulator and tests can plug in others.
type Decider struct {
	// Lookup returns the policy of a name; nil means solver.ByName.
	Lookup func(name string) (solver.Solver, bool)
}

// Decide is Decider{}.Decide: the production policies.
func Decide(req Request, prev ClusterState) (Decision, ClusterState, error) {
	return Decider{}.Decide(req, prev)
}

// Decide validates req (with the default Limits; a caller with tighter
// limits validates first), splits the slots between the phases, solves each
// phase's problem with its policy on its budget and assembles the decision,
// together with the cluster state that follows prev.
//
// A phase without jobs gets an empty result and its policy is not called.
// A job taking no part in a phase gets 0 slots there with ReasonNone.
//
// Errors: a *solver.ValidationError, with wire paths, when the request
// breaks a rule (the HTTP layer's 422); any other error means a policy
// failed or broke its contract (a 500: a bug, not the caller's fault). On
// error the returned state is prev.
//
// Only the static ratio mode exists for now: Validate refuses the others
// and OMO, so OMO is always nil and the OMO state passes through.
func (d Decider) Decide(req Request, prev ClusterState) (Decision, ClusterState, error) {
	if fes := Validate(req, Limits{}); fes != nil {
		return Decision{}, prev, &solver.ValidationError{Problems: fes}
	}
	b := budgets(req)
	mp, rp := Normalize(req)
	mp.Problem.Slots, rp.Problem.Slots = b.Map, b.Reduce
	mres, err := d.solve(mp)
	if err != nil {
		return Decision{}, prev, err
	}
	rres, err := d.solve(rp)
	if err != nil {
		return Decision{}, prev, err
	}
	dec := Decision{
		Epoch:       req.Epoch,
		Budgets:     b,
		Phases:      Phases{Map: mres, Reduce: rres},
		Allocations: make([]JobAllocation, len(req.Jobs)),
		Fairness:    fairness(req),
	}
	for i, j := range req.Jobs {
		dec.Allocations[i] = JobAllocation{ID: j.ID, MapReason: ReasonNone, ReduceReason: ReasonNone}
	}
	for k, i := range mp.Index {
		a := mres.Allocations[k]
		dec.Allocations[i].Map, dec.Allocations[i].MapReason = a.Slots, a.Reason
	}
	for k, i := range rp.Index {
		a := rres.Allocations[k]
		dec.Allocations[i].Reduce, dec.Allocations[i].ReduceReason = a.Slots, a.Reason
	}
	next := ClusterState{LastEpoch: req.Epoch, OMO: prev.OMO}
	return dec, next, nil
}

// budgets is the ratio stage (docs/algorithms.md section 7). Only the
// static split exists until package ratio lands (issue 3); Validate refuses
// the other modes (see unsupported), so none reaches here. Replace this
// body with the call into ratio, which also yields OMO's decision and next
// state.
func budgets(req Request) Budgets {
	return Budgets{Mode: ModeStatic, Map: req.Slots.Map, Reduce: req.Slots.Reduce}
}

// solve runs a phase's policy and checks that its answer covers the
// phase's jobs in order, so that assembling the decision cannot index out
// of range whatever a policy returns.
func (d Decider) solve(pp PhaseProblem) (*solver.Result, error) {
	lookup := d.Lookup
	if lookup == nil {
		lookup = solver.ByName
	}
	s, ok := lookup(pp.Policy)
	if !ok {
		return nil, &solver.ValidationError{Problems: []solver.FieldError{{
			Field: pp.PolicyField, Message: fmt.Sprintf("unknown policy %q", pp.Policy),
		}}}
	}
	if len(pp.Problem.Jobs) == 0 {
		return emptyResult(s.Name(), pp.Problem.Metric), nil
	}
	res, err := s.Solve(pp.Problem)
	if ve, ok := err.(*solver.ValidationError); ok {
		// Validate should have caught it; still, name the request's fields.
		out := &solver.ValidationError{Problems: make([]solver.FieldError, len(ve.Problems))}
		for x, fe := range ve.Problems {
			fe.Field = pp.requestPath(fe.Field)
			out.Problems[x] = fe
		}
		return nil, out
	}
	if err != nil {
		return nil, fmt.Errorf("epoch: %s phase, policy %q: %w", pp.Phase, pp.Policy, err)
	}
	if len(res.Allocations) != len(pp.Problem.Jobs) {
		return nil, fmt.Errorf("epoch: %s phase, policy %q returned %d allocations for %d jobs",
			pp.Phase, pp.Policy, len(res.Allocations), len(pp.Problem.Jobs))
	}
	for k, a := range res.Allocations {
		if a.ID != pp.Problem.Jobs[k].ID {
			return nil, fmt.Errorf("epoch: %s phase, policy %q: allocation %d is for job %q, want %q",
				pp.Phase, pp.Policy, k, a.ID, pp.Problem.Jobs[k].ID)
		}
	}
	return &res, nil
}

// emptyResult is a phase's answer when no job has work in it: no
// allocations, an empty plan and an objective of 0 (a max over no jobs is
// reported as 0 too, since JSON has no -Inf).
func emptyResult(policy string, metric penalty.Metric) *solver.Result {
	if metric == "" {
		metric = penalty.AvgResponseTime
	}
	info, _ := penalty.Lookup(metric)
	return &solver.Result{Policy: policy, Metric: metric, Aggregate: info.Aggregate}
}

// fairness is FRESH's overall fairness (dissertation Eq. 3.1): Jain's index
// over each job's resource rate r_i = consumed slot-seconds / (now -
// submitted). Jobs without consumed slot-seconds, or not yet in the system
// for a positive time, are left out; nil when no job remains or all rates
// are 0 (the index is 0/0 there). Jain's index is local until package
// ratio, which FRESH needs it for, exports one.
func fairness(req Request) *float64 {
	var rates []float64
	for _, j := range req.Jobs {
		if j.ConsumedSlotSeconds == nil {
			continue
		}
		age := req.Now - j.Submitted
		if !(age > 0) {
			continue
		}
		rates = append(rates, *j.ConsumedSlotSeconds/age)
	}
	f, ok := jain(rates)
	if !ok {
		return nil
	}
	return &f
}

// jain is Jain's fairness index (sum x)^2 / (n sum x^2), in [1/n, 1]. The
// rates are scaled by their maximum first so the squares cannot overflow.
// ok is false for no rates, all zero, or any negative or non-finite one.
func jain(xs []float64) (index float64, ok bool) {
	top := 0.0
	for _, x := range xs {
		if !finite(x) || x < 0 {
			return 0, false
		}
		top = max(top, x)
	}
	if top == 0 {
		return 0, false
	}
	var sum, sq float64
	for _, x := range xs {
		y := x / top
		sum += y
		sq += y * y
	}
	return sum * sum / (float64(len(xs)) * sq), true
}
