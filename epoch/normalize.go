package epoch

import (
	"math"
	"strconv"

	"github.com/flexd/flexd/solver"
)

// The phases, as the wire names them.
const (
	PhaseMap    = "map"
	PhaseReduce = "reduce"
)

// PhaseProblem is one phase's solver problem together with what maps it
// back to the request: a job's index in a phase problem is not its index in
// the request, because jobs without work in the phase are left out.
type PhaseProblem struct {
	// Phase is PhaseMap or PhaseReduce.
	Phase string
	// Policy is the phase's policy name: the phase override, else the
	// request's policy, else DefaultPolicy. PolicyField is the wire path
	// that chose it, where errors about the policy belong.
	Policy, PolicyField string
	// Problem is the phase problem. Its Slots are the caller's static slot
	// count for the phase; Decide replaces them with the phase's budget.
	Problem solver.Problem
	// Index[k] is the request index of Problem.Jobs[k], increasing.
	Index []int
}

// Normalize builds the two phase problems of a request
// (docs/algorithms.md sections 1 and 7). A job takes part in a phase when
// the phase is present and its work is positive and finite; its problem
// job carries the phase's min, max and work, its demand (pending + running,
// when positive, so the solver clamps max to it and says "demand"), its
// weight (1 when absent), deadline, SLA steps and objective override, and
// the phase's total work for stretch. The request's fair variant goes into
// the problems' options. Jobs keep their request order.
//
// Normalize does not validate: on an invalid request it returns problems
// the solver will reject, never a panic.
func Normalize(req Request) (mapProblem, reduceProblem PhaseProblem) {
	build := func(phase string, slots int, override, field string, get func(Job) *Phase) PhaseProblem {
		pp := PhaseProblem{
			Phase:       phase,
			Policy:      DefaultPolicy,
			PolicyField: "policy",
			Problem: solver.Problem{
				Slots:   slots,
				Now:     req.Now,
				Metric:  req.Objective,
				Options: solver.Options{FairVariant: req.FairVariant},
			},
		}
		// Validate has checked it; a bad one here is left to the default.
		pp.Problem.Options.Effort, _ = solver.EffortOption(req.Effort)
		switch {
		case override != "":
			pp.Policy, pp.PolicyField = override, field
		case req.Policy != "":
			pp.Policy = req.Policy
		}
		// Counted first so the slices are allocated once: a phase problem
		// is built for every epoch, twice.
		n := 0
		for _, j := range req.Jobs {
			if participates(get(j)) {
				n++
			}
		}
		if n == 0 {
			return pp
		}
		pp.Problem.Jobs, pp.Index = make([]solver.Job, 0, n), make([]int, 0, n)
		for i, j := range req.Jobs {
			p := get(j)
			if !participates(p) {
				continue
			}
			pp.Problem.Jobs = append(pp.Problem.Jobs, solverJob(j, *p))
			pp.Index = append(pp.Index, i)
		}
		return pp
	}
	mapProblem = build(PhaseMap, req.Slots.Map, req.PhasePolicy.Map, "phase_policy.map", func(j Job) *Phase { return j.Map })
	reduceProblem = build(PhaseReduce, req.Slots.Reduce, req.PhasePolicy.Reduce, "phase_policy.reduce", func(j Job) *Phase { return j.Reduce })
	return mapProblem, reduceProblem
}

// participates reports whether a phase has anything to schedule.
func participates(p *Phase) bool {
	return p != nil && p.Work > 0 && !math.IsInf(p.Work, 1)
}

// solverJob is job j's problem job in a phase with state p.
func solverJob(j Job, p Phase) solver.Job {
	return solver.Job{
		ID:          j.ID,
		Min:         p.Min,
		Max:         p.Max,
		Demand:      demand(p),
		Work:        p.Work,
		Submitted:   j.Submitted,
		TotalWork:   p.TotalWork,
		Weight:      valueOr(j.Weight, 1),
		Deadline:    j.Deadline,
		HasDeadline: j.HasDeadline,
		SLA:         j.SLA,
		Metric:      j.Objective,
	}
}

// demand is pending + running, saturating rather than overflowing, with
// negative counts (rejected by Validate) taken as 0.
func demand(p Phase) int {
	a, b := max(p.Pending, 0), max(p.Running, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// requestPath maps a solver field path of this phase problem to the
// request's wire path: "jobs[k].max" to "jobs[i].reduce.max",
// "jobs[k].deadline" to "jobs[i].deadline", "slots" to "slots.reduce", and
// "jobs" (the only problem-wide rule on jobs a solve can break is a
// policy's size limit) to the policy's field.
func (pp PhaseProblem) requestPath(field string) string {
	k, rest, isJob := splitJobPath(field)
	switch {
	case isJob && k >= 0 && k < len(pp.Index):
		base := jobPath(pp.Index[k])
		if rest == "" {
			return base
		}
		if isPhaseField(rest) {
			if rest == "demand" {
				rest = "pending"
			}
			return base + "." + pp.Phase + "." + rest
		}
		return base + "." + rest
	case isJob:
		return field // out of range: leave it as the solver said it
	case field == "slots":
		return "slots." + pp.Phase
	case field == "jobs":
		return pp.PolicyField
	}
	return field
}

// jobPath is the wire path of the request's i-th job.
func jobPath(i int) string { return "jobs[" + strconv.Itoa(i) + "]" }
