package epoch

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/flexd/flexd/ratio"
	"github.com/flexd/flexd/solver"
)

// Limits bound a request before any per-job work is done (docs/api.md,
// "Errors and limits"). A field <= 0 means the solver's own limit; a larger
// one is lowered to it, because a phase problem may never exceed what the
// solver accepts.
type Limits struct {
	// MaxJobs is the most jobs a request may hold (default solver.MaxJobs).
	MaxJobs int
	// MaxSlots is the most slots per phase (default solver.MaxSlots).
	MaxSlots int
	// MaxNodes and MaxTasks bound the task-level state: the nodes, and the
	// running plus completed attempts (defaults DefaultMaxNodes and
	// DefaultMaxTasks).
	MaxNodes, MaxTasks int
}

func (l Limits) taskLimits() (nodes, tasks int) {
	nodes, tasks = DefaultMaxNodes, DefaultMaxTasks
	if l.MaxNodes > 0 {
		nodes = min(nodes, l.MaxNodes)
	}
	if l.MaxTasks > 0 {
		tasks = min(tasks, l.MaxTasks)
	}
	return nodes, tasks
}

// Counts returns the bounds on a request's lists with defaults applied:
// jobs, nodes, and running plus completed attempts. A decoder stops at
// them.
func (l Limits) Counts() (jobs, nodes, tasks int) {
	jobs, _ = l.effective()
	nodes, tasks = l.taskLimits()
	return jobs, nodes, tasks
}

func (l Limits) effective() (jobs, slots int) {
	jobs, slots = solver.MaxJobs, solver.MaxSlots
	if l.MaxJobs > 0 {
		jobs = min(jobs, l.MaxJobs)
	}
	if l.MaxSlots > 0 {
		slots = min(slots, l.MaxSlots)
	}
	return jobs, slots
}

// Validate checks every rule of docs/api.md for an epoch request and
// returns all problems at once, each located by its wire JSON path, in a
// stable order (request-wide fields first, then job by job); nil means the
// request is valid. The job count is checked first: past limits.MaxJobs no
// per-job check runs, so an oversized body costs O(1) beyond decoding.
//
// Job-level rules (ids, weight, deadlines, SLA steps, objectives) are
// solver.Validate's, run on one problem holding every job; phase rules
// (min, max, total_work) are solver.Validate's on each phase problem, its
// paths mapped back to the request's ("jobs[0].max" of the reduce problem
// may be "jobs[7].reduce.max"). Only what the solver cannot know is checked
// here. A phase without work is checked only for its work and task counts:
// nothing there is scheduled. The ratio and OMO settings, and what the ratio
// stage needs of the jobs (declared pools, consistent task counts), are
// ratio.Validate's, on RatioConfig and RatioInput of the request.
func Validate(req Request, limits Limits) []solver.FieldError {
	maxJobs, maxSlots := limits.effective()
	var v validator
	v.request(req, maxSlots)
	if len(req.Jobs) > maxJobs {
		v.ratioProblems(req, false)
		v.add(-1, "jobs", "", "must hold at most %d jobs, got %d", maxJobs, len(req.Jobs))
		return v.sorted()
	}
	v.jobLevel(req)
	for i, j := range req.Jobs {
		v.phaseFields(i, j.ID, "map", j.Map)
		v.phaseFields(i, j.ID, "reduce", j.Reduce)
		if c := j.ConsumedSlotSeconds; c != nil && (!finite(*c) || *c < 0) {
			v.add(i, jobPath(i)+".consumed_slot_seconds", j.ID, "must be a finite number >= 0, got %v", *c)
		}
	}
	v.validateEstimate(req.Estimate)
	maxNodes, maxTasks := limits.taskLimits()
	v.validateTaskState(req, maxNodes, maxTasks)
	// The phase problems are checked as they will be solved: with the
	// estimated work (an estimated phase must have a max, as any phase
	// with work). Statistics that are not finite give no estimate, and
	// are reported above.
	req, _ = withEstimates(req)
	mp, rp := Normalize(req)
	for _, pp := range []PhaseProblem{mp, rp} {
		v.phaseProblem(pp)
	}
	v.ratioProblems(req, true)
	return v.sorted()
}

// ratioProblems adds what package ratio finds wrong with the request's
// ratio and OMO settings and its jobs as ratio sees them (unknown pools,
// pool declarations, the reduce-slot weight, OMO needing fungible slots or
// a bandwidth, more pending + running tasks than tasks), at the request's
// wire paths. A field this package has already reported is not reported
// again: both check some of the same values. With withJobs false only the
// settings are checked (the request holds too many jobs to look at).
func (v *validator) ratioProblems(req Request, withJobs bool) {
	reported := map[string]bool{}
	for _, l := range v.list {
		reported[l.fe.Field] = true
	}
	cfg := RatioConfig(req)
	var fes []ratio.FieldError
	if withJobs {
		fes = ratio.Validate(cfg, RatioInput(req))
	} else {
		fes = cfg.Validate()
	}
	for _, fe := range fes {
		if reported[fe.Field] || fe.Field == "slots" && (reported["slots.map"] || reported["slots.reduce"]) {
			continue
		}
		reported[fe.Field] = true
		job := -1
		if k, _, isJob := splitJobPath(fe.Field); isJob {
			job = k
		}
		v.list = append(v.list, located{job, solver.FieldError{Field: fe.Field, JobID: fe.JobID, Message: fe.Message}})
	}
}

// located is a FieldError with the request index of its job (-1 for
// request-wide fields), by which the list is sorted.
type located struct {
	job int
	fe  solver.FieldError
}

type validator struct{ list []located }

func (v *validator) add(job int, field, jobID, format string, args ...any) {
	v.list = append(v.list, located{job, solver.FieldError{Field: field, JobID: jobID, Message: fmt.Sprintf(format, args...)}})
}

func (v *validator) sorted() []solver.FieldError {
	if len(v.list) == 0 {
		return nil
	}
	slices.SortStableFunc(v.list, func(a, b located) int { return a.job - b.job })
	out := make([]solver.FieldError, len(v.list))
	for i, l := range v.list {
		out[i] = l.fe
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// MaxEpoch is the largest epoch number a request may carry: 2^53 - 1, the
// largest integer every JSON client (a double) reads exactly, and far from
// int64's end, so that the next epoch always exists.
const MaxEpoch = 1<<53 - 1

// request checks the request-wide fields the solver does not see.
func (v *validator) request(req Request, maxSlots int) {
	if req.Epoch < 0 || req.Epoch > MaxEpoch {
		v.add(-1, "epoch", "", "must be an integer in [0, %d], got %d", int64(MaxEpoch), req.Epoch)
	}
	if !finite(req.EpochLength) || req.EpochLength < 0 {
		v.add(-1, "epoch_length", "", "must be a finite number >= 0, got %v", req.EpochLength)
	}
	if _, ok := solver.ByName(req.Policy); !ok {
		v.add(-1, "policy", "", "unknown policy %q; one of %s", req.Policy, strings.Join(solver.Names(), ", "))
	}
	for _, pp := range []struct{ field, name string }{
		{"phase_policy.map", req.PhasePolicy.Map},
		{"phase_policy.reduce", req.PhasePolicy.Reduce},
	} {
		if _, ok := solver.ByName(pp.name); pp.name != "" && !ok {
			v.add(-1, pp.field, "", "unknown policy %q; one of %s", pp.name, strings.Join(solver.Names(), ", "))
		}
	}
	switch req.FairVariant {
	case "", "mrv1", "yarn":
	default:
		v.add(-1, "fair_variant", "", "unknown fair variant %q; one of mrv1, yarn", req.FairVariant)
	}
	if _, err := solver.EffortOption(req.Effort); err != nil {
		v.add(-1, "effort", "", "%s", err.Error())
	}
	for _, s := range []struct {
		field string
		n     int
	}{{"slots.map", req.Slots.Map}, {"slots.reduce", req.Slots.Reduce}} {
		if s.n < 1 {
			v.add(-1, s.field, "", "must be at least 1, got %d", s.n)
		} else if s.n > maxSlots {
			v.add(-1, s.field, "", "must be at most %d, got %d", maxSlots, s.n)
		}
	}
	switch req.Ratio.Mode {
	case "", ModeStatic, ModePIDHSA, ModePDDHSA, ModeFresh:
	default:
		v.add(-1, "ratio.mode", "", "unknown ratio mode %q; one of %s, %s, %s, %s",
			req.Ratio.Mode, ModeStatic, ModePIDHSA, ModePDDHSA, ModeFresh)
	}
	if shared := req.Ratio.Mode != "" && req.Ratio.Mode != ModeStatic; shared &&
		req.Slots.Map >= 1 && req.Slots.Reduce >= 1 && req.Slots.Map > maxSlots-req.Slots.Reduce {
		// Outside static mode one phase may get every slot, and a phase
		// problem may not exceed the solver's limit.
		v.add(-1, "slots", "", "with ratio mode %q the phases share their slots: slots.map + slots.reduce must be at most %d, got %d",
			req.Ratio.Mode, maxSlots, req.Slots.Map+req.Slots.Reduce)
	}
	for _, f := range []struct {
		field string
		p     *float64
	}{
		{"ratio.borrow_map", req.Ratio.BorrowMap},
		{"ratio.borrow_reduce", req.Ratio.BorrowReduce},
	} {
		if f.p != nil && !(*f.p >= 0 && *f.p <= 1) {
			v.add(-1, f.field, "", "must be a number in [0, 1], got %v", *f.p)
		}
	}
	// A threshold of 0 would switch FRESH's look-ahead on for every job;
	// ratio reads 0 as "default", so an explicit 0 is refused, not
	// silently replaced.
	for _, f := range []struct {
		field string
		p     *float64
	}{
		{"ratio.tau1", req.Ratio.Tau1},
		{"ratio.tau2", req.Ratio.Tau2},
	} {
		if f.p != nil && !(*f.p > 0 && *f.p <= 1) {
			v.add(-1, f.field, "", "must be a number in (0, 1], got %v", *f.p)
		}
	}
	if !finite(req.OMO.Bandwidth) || req.OMO.Bandwidth < 0 {
		v.add(-1, "omo.bandwidth", "", "must be a finite number >= 0, got %v", req.OMO.Bandwidth)
	}
	if !(req.OMO.EMAAlpha >= 0 && req.OMO.EMAAlpha <= 1) {
		v.add(-1, "omo.ema_alpha", "", "must be a number in [0, 1], got %v", req.OMO.EMAAlpha)
	}
	if req.ReleasedSlots < 0 {
		v.add(-1, "released_slots", "", "must be >= 0, got %d", req.ReleasedSlots)
	}
}

// phaseFields checks the phase fields the solver never sees (work may be 0
// in an epoch; task counts and statistics are not part of a phase problem).
func (v *validator) phaseFields(i int, id, phase string, p *Phase) {
	if p == nil {
		return
	}
	path := jobPath(i) + "." + phase
	if !finite(p.Work) || p.Work < 0 {
		v.add(i, path+".work", id, "must be a finite number >= 0, got %v", p.Work)
	}
	for _, c := range []struct {
		field string
		n     int
	}{{"pending", p.Pending}, {"running", p.Running}, {"tasks", p.Tasks}} {
		if c.n < 0 {
			v.add(i, path+"."+c.field, id, "must be >= 0, got %d", c.n)
		}
	}
	// Checked here too, not only by the ratio stage (which sees only the
	// phases with work): an estimate reads the counts of phases without.
	// (Compared without adding the counts, which may be near MaxInt.)
	if p.Tasks > 0 && p.Pending >= 0 && p.Running >= 0 && (p.Pending > p.Tasks || p.Running > p.Tasks-p.Pending) {
		v.add(i, path+".tasks", id, "pending (%d) + running (%d) exceed the task count %d", p.Pending, p.Running, p.Tasks)
	}
	for _, f := range []struct {
		field string
		x     float64
	}{{"avg_task_time", p.AvgTaskTime}, {"output_bytes_per_task", p.OutputBytesPerTask}, {"running_elapsed", p.RunningElapsed}} {
		if !finite(f.x) || f.x < 0 {
			v.add(i, path+"."+f.field, id, "must be a finite number >= 0, got %v", f.x)
		}
	}
}

// jobLevel runs solver.Validate on one problem holding every job in request
// order (so its paths are the request's), with harmless phase fields, and
// keeps what it says about the request-wide and job-level fields.
func (v *validator) jobLevel(req Request) {
	p := solver.Problem{Slots: 1, Now: req.Now, Metric: req.Objective, Jobs: make([]solver.Job, len(req.Jobs))}
	for i, j := range req.Jobs {
		p.Jobs[i] = solverJob(j, Phase{Min: 0, Max: 1, Work: 1})
	}
	err := solver.Validate(p)
	for _, fe := range problemsOf(err) {
		i, rest, isJob := splitJobPath(fe.Field)
		switch {
		case !isJob && (fe.Field == "slots" || fe.Field == "jobs"):
			// Slots are checked per phase above; an epoch may hold no jobs.
		case !isJob:
			v.list = append(v.list, located{-1, fe})
		case isPhaseField(rest):
			// Placeholders; the phase problems check the real values.
		default:
			v.list = append(v.list, located{i, fe})
		}
	}
}

// phaseProblem runs solver.Validate on a phase problem and keeps what it
// says about phase fields, at the request's paths; it also enforces the
// policies' own job limits (solver.JobLimit: "optimal", "fair"), which the
// solvers check only when solving.
func (v *validator) phaseProblem(pp PhaseProblem) {
	if len(pp.Problem.Jobs) == 0 {
		return
	}
	if limit, why, ok := solver.JobLimit(pp.Policy); ok && len(pp.Problem.Jobs) > limit {
		v.add(-1, pp.PolicyField, "", "policy %q %s and takes at most %d jobs, the %s phase has %d",
			pp.Policy, why, limit, pp.Phase, len(pp.Problem.Jobs))
	}
	for _, fe := range problemsOf(solver.Validate(pp.Problem)) {
		k, rest, isJob := splitJobPath(fe.Field)
		if !isJob || !isPhaseField(rest) || k < 0 || k >= len(pp.Index) {
			continue // request-wide and job-level fields: checked once, above
		}
		i := pp.Index[k]
		fe.Field = pp.requestPath(fe.Field)
		v.list = append(v.list, located{i, fe})
	}
}

// isPhaseField reports whether a solver job field (the path after
// "jobs[k].") comes from a phase; "demand" is pending + running.
func isPhaseField(rest string) bool {
	switch rest {
	case "min", "max", "work", "total_work", "demand":
		return true
	}
	return false
}

func problemsOf(err error) []solver.FieldError {
	if ve, ok := err.(*solver.ValidationError); ok {
		return ve.Problems
	}
	return nil
}

// splitJobPath splits "jobs[3].sla[1].deadline" into 3 and
// "sla[1].deadline"; ok is false for a path outside jobs[k].
func splitJobPath(field string) (k int, rest string, ok bool) {
	after, found := strings.CutPrefix(field, "jobs[")
	if !found {
		return 0, "", false
	}
	num, tail, found := strings.Cut(after, "]")
	if !found {
		return 0, "", false
	}
	k, err := strconv.Atoi(num)
	if err != nil {
		return 0, "", false
	}
	return k, strings.TrimPrefix(tail, "."), true
}
