package epoch

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/ratio"
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

// Checked is a request that Check found valid, so DecideChecked need not
// validate it again (each validation of a 200-job epoch is about 4% of
// the server's CPU for it, and a sixth of its allocations). Only Check makes one; the request it holds
// shares its slices with the one checked, which must not change after.
type Checked struct {
	req   Request
	valid bool
	// est is req with its estimated work filled in, and ests the
	// estimates (withEstimates).
	est  Request
	ests []JobEstimate
}

// Request is the checked request.
func (c Checked) Request() Request { return c.req }

// Check validates req with limits (Validate) and, when it breaks no rule,
// returns it as Checked. Otherwise the problems are returned and the
// Checked is the zero value, which DecideChecked refuses.
func Check(req Request, limits Limits) (Checked, []solver.FieldError) {
	if fes := Validate(req, limits); fes != nil {
		return Checked{}, fes
	}
	est, ests := withEstimates(req)
	return Checked{req: req, valid: true, est: est, ests: ests}, nil
}

// Decide validates req (with the default Limits; a caller with tighter
// limits, or one that decides a request more than once, uses Check and
// DecideChecked), runs the ratio stage (package ratio:
// docs/algorithms.md section 7) for the phase budgets and OMO's decisions,
// solves each phase's problem with its policy on its budget (in pd_dhsa,
// each pool's phase problem on the pool's budget) and assembles the
// decision, together with the cluster state that follows prev.
//
// OMO's overrides change the phase problems before any policy runs: a job
// whose reduce phase lazy start holds is left out of the reduce problem
// (0 slots, ReasonHeld), and the batch-finish job's map minimum is raised to
// what ratio granted (its pending plus running map tasks within its budget;
// the solver still clamps a minimum to the job's max).
//
// A phase without jobs gets an empty result and its policy is not called.
// A phase (or pool phase) with jobs and a budget of 0 is not solved either
// (a problem needs a slot): each of its jobs gets 0 slots with
// ReasonNoBudget, and its result has no plan and an objective of 0. A job
// taking no part in a phase gets 0 slots there with ReasonNone.
//
// The next state carries OMO's moving averages, updated from this epoch
// when OMO is on and passed through unchanged when it is off.
//
// Errors: a *solver.ValidationError, with wire paths, when the request
// breaks a rule (the HTTP layer's 422); any other error means a policy
// failed or broke its contract (a 500: a bug, not the caller's fault). On
// error the returned state is prev.
func (d Decider) Decide(req Request, prev ClusterState) (Decision, ClusterState, error) {
	c, fes := Check(req, Limits{})
	if fes != nil {
		return Decision{}, prev, &solver.ValidationError{Problems: fes}
	}
	return d.DecideChecked(c, prev)
}

// DecideChecked is Decide on a request Check has validated. A zero Checked
// (one Check did not return as valid) is refused with an error, never
// decided.
func (d Decider) DecideChecked(c Checked, prev ClusterState) (Decision, ClusterState, error) {
	if !c.valid {
		return Decision{}, prev, errors.New("epoch: DecideChecked on a request Check did not validate")
	}
	// The estimated request: every stage after validation reads the
	// estimated work (docs/algorithms.md section 8, FLEX 4.2).
	req := c.est
	var prevOMO OMOState
	if prev.OMO != nil {
		prevOMO = *prev.OMO
	}
	rr, nextOMO := ratio.Budgets(RatioConfig(req), RatioInput(req), prevOMO)
	b := budgetsOf(rr)
	mp, rp := Normalize(req)
	held := applyOverrides(req, &mp, &rp, rr.Overrides)

	dec := Decision{
		Epoch:       req.Epoch,
		Budgets:     b,
		OMO:         omoOf(rr.OMO),
		Allocations: make([]JobAllocation, len(req.Jobs)),
		Fairness:    fairness(req),
		Why:         rr.Why,
		Estimates:   c.ests,
	}
	if rr.Mode == ratio.ModePDDHSA {
		pools, err := d.solvePools(req, b, mp, rp)
		if err != nil {
			return Decision{}, prev, err
		}
		dec.PoolPhases = pools
		for _, x := range []struct {
			pp  PhaseProblem
			res **solver.Result
			get func(Phases) *solver.Result
		}{
			{mp, &dec.Phases.Map, func(ph Phases) *solver.Result { return ph.Map }},
			{rp, &dec.Phases.Reduce, func(ph Phases) *solver.Result { return ph.Reduce }},
		} {
			if len(x.pp.Problem.Jobs) > 0 {
				*x.res = mergePools(x.pp, pools, x.get)
				continue
			}
			if *x.res, err = d.solve(x.pp); err != nil {
				return Decision{}, prev, err
			}
		}
	} else {
		mp.Problem.Slots, rp.Problem.Slots = phaseSlots(b.Map), phaseSlots(b.Reduce)
		var err error
		if dec.Phases.Map, err = d.solve(mp); err != nil {
			return Decision{}, prev, err
		}
		if dec.Phases.Reduce, err = d.solve(rp); err != nil {
			return Decision{}, prev, err
		}
	}

	for i, j := range req.Jobs {
		dec.Allocations[i] = JobAllocation{ID: j.ID, MapReason: ReasonNone, ReduceReason: ReasonNone}
		if held[i] {
			dec.Allocations[i].ReduceReason = ReasonHeld
		}
	}
	for k, i := range mp.Index {
		a := dec.Phases.Map.Allocations[k]
		dec.Allocations[i].Map, dec.Allocations[i].MapReason = a.Slots, a.Reason
	}
	for k, i := range rp.Index {
		a := dec.Phases.Reduce.Allocations[k]
		dec.Allocations[i].Reduce, dec.Allocations[i].ReduceReason = a.Slots, a.Reason
	}
	next := ClusterState{LastEpoch: req.Epoch}
	switch {
	case req.OMO.Enabled():
		next.OMO = &nextOMO
	case prev.OMO != nil:
		carried := *prev.OMO
		next.OMO = &carried
	}
	// Advice comes last and reads the allocations; it changes none. What
	// the detectors learnt is carried through epochs without a detector,
	// as OMO's averages are.
	next.Estimate = prev.Estimate
	if c.req.speculating() {
		dec.Speculation, next.Estimate = advise(c.req, dec, prev.Estimate)
	}
	if c.req.Preschedule.Enabled {
		dec.Preschedule = preschedule(c.req, dec)
	}
	return dec, next, nil
}

// phaseSlots is the slots a phase (or pool phase) problem gets for a
// budget. Validate keeps the cluster's slots within solver.MaxSlots, but
// with a reduce-slot weight above 1 slots lent by the reduce phase are
// worth more than one map slot each, so a budget can exceed it; a problem
// never may, and no job could tell the difference.
func phaseSlots(budget int) int { return min(budget, solver.MaxSlots) }

// budgetsOf is ratio's decision in this package's terms.
func budgetsOf(rr ratio.Result) Budgets {
	b := Budgets{
		Mode:     string(rr.Mode),
		Map:      rr.Map,
		Reduce:   rr.Reduce,
		Borrowed: Borrowed{ReduceToMap: rr.Borrowed.ReduceToMap, MapToReduce: rr.Borrowed.MapToReduce},
		Theta:    rr.Theta,
	}
	if rr.Mode == ratio.ModePDDHSA {
		b.Pools = make(map[string]PoolBudget, len(rr.Pools))
		for _, p := range rr.Pools {
			b.Pools[p.Pool] = PoolBudget{Map: p.Map, Reduce: p.Reduce}
		}
	}
	return b
}

// omoOf is OMO's decision in this package's terms; nil when OMO is off.
func omoOf(o *ratio.OMODecision) *OMODecision {
	if o == nil {
		return nil
	}
	return &OMODecision{
		StartReduce:    append([]string(nil), o.StartReduce...),
		BatchFinish:    o.BatchFinish,
		ReleaseRate:    o.ReleaseRate,
		AvailableSlots: o.AvailableSlots,
	}
}

// applyOverrides applies OMO's per-job changes to the phase problems: a
// held job leaves the reduce problem, a raised map minimum replaces a
// lower one. It returns the request indexes of the held jobs.
func applyOverrides(req Request, mp, rp *PhaseProblem, overrides []ratio.Override) map[int]bool {
	if len(overrides) == 0 {
		return nil
	}
	byID := make(map[string]int, len(req.Jobs))
	for i, j := range req.Jobs {
		byID[j.ID] = i
	}
	held := map[int]bool{}
	mapMin := map[int]int{}
	for _, o := range overrides {
		i, ok := byID[o.ID]
		if !ok {
			continue
		}
		if o.HoldReduce {
			held[i] = true
		}
		if o.MapMin > 0 {
			mapMin[i] = o.MapMin
		}
	}
	for k, i := range mp.Index {
		if m, ok := mapMin[i]; ok {
			mp.Problem.Jobs[k].Min = max(mp.Problem.Jobs[k].Min, m)
		}
	}
	if len(held) > 0 {
		var jobs []solver.Job
		var index []int
		for k, i := range rp.Index {
			if !held[i] {
				jobs = append(jobs, rp.Problem.Jobs[k])
				index = append(index, i)
			}
		}
		rp.Problem.Jobs, rp.Index = jobs, index
	}
	return held
}

// solvePools solves every pool's map and reduce problem on the pool's
// budget (pd_dhsa). Every pool with a budget or a job in a phase gets both
// phases' results, empty where it has no jobs.
func (d Decider) solvePools(req Request, b Budgets, mp, rp PhaseProblem) (map[string]Phases, error) {
	out := map[string]Phases{}
	for name := range b.Pools {
		out[name] = Phases{}
	}
	split := func(pp PhaseProblem) map[string]PhaseProblem {
		parts := map[string]PhaseProblem{}
		for k, i := range pp.Index {
			name := jobPool(req.Jobs[i])
			part, ok := parts[name]
			if !ok {
				part = pp
				part.Problem.Jobs, part.Index = nil, nil
			}
			part.Problem.Jobs = append(part.Problem.Jobs, pp.Problem.Jobs[k])
			part.Index = append(part.Index, i)
			parts[name] = part
			if _, ok := out[name]; !ok {
				out[name] = Phases{} // a pool without a budget gets 0
			}
		}
		return parts
	}
	mparts, rparts := split(mp), split(rp)
	for _, name := range slices.Sorted(maps.Keys(out)) {
		ph := out[name]
		pb := b.Pools[name]
		for _, x := range []struct {
			parts  map[string]PhaseProblem
			whole  PhaseProblem
			budget int
			res    **solver.Result
		}{{mparts, mp, pb.Map, &ph.Map}, {rparts, rp, pb.Reduce, &ph.Reduce}} {
			part, ok := x.parts[name]
			if !ok {
				part = x.whole
				part.Problem.Jobs, part.Index = nil, nil
			}
			part.Problem.Slots = phaseSlots(x.budget)
			res, err := d.solve(part)
			if err != nil {
				return nil, err
			}
			*x.res = res
		}
		out[name] = ph
	}
	return out, nil
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
	if pp.Problem.Slots <= 0 {
		// No problem has zero slots; the answer is known anyway.
		res := emptyResult(s.Name(), pp.Problem.Metric)
		for _, j := range pp.Problem.Jobs {
			res.Allocations = append(res.Allocations, solver.Allocation{ID: j.ID, Reason: ReasonNoBudget})
		}
		return res, nil
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
// are 0 (the index is 0/0 there). The local jain, unlike ratio.Jain, says
// when the index is undefined rather than answering a number.
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
