package solver

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver/fairshare"
	"github.com/flexd/flexd/solver/mps"
)

// Limits a problem must respect before any work is done.
const (
	// MaxJobs is the most jobs one problem may hold.
	MaxJobs = 100_000
	// MaxSlots is the most slots one problem may hold.
	MaxSlots = 10_000_000
	// MaxFairJobs is the most jobs the "fair" policy plans. A FAIR plan
	// has an interval per completion and updates every live job's work in
	// each, so it costs O(J^2) (bit-for-bit completion times need each
	// update): at 20,000 jobs about 0.3 s with mrv1 and 3.3 s with yarn,
	// at 100,000 6 s and some 100 s, which a request would hold the server
	// for (a solve cannot be interrupted). No cluster runs that many jobs
	// in a phase; FLEX takes them all.
	MaxFairJobs = 20_000
	// MaxOptimalJobs is the most jobs the exhaustive "optimal" policy takes.
	MaxOptimalJobs = 10
)

// JobLimit is the most jobs policy takes when its cost holds it below
// MaxJobs ("optimal", "fair"), with why; ok is false for the others.
func JobLimit(policy string) (limit int, why string, ok bool) {
	switch policy {
	case "optimal":
		return MaxOptimalJobs, "is exhaustive", true
	case "fair":
		return MaxFairJobs, "plans in O(J^2)", true
	}
	return 0, "", false
}

// checkJobLimit is the ValidationError, naming jobs, of a problem of n
// jobs over policy's JobLimit; nil within it.
func checkJobLimit(policy string, n int) error {
	if limit, why, ok := JobLimit(policy); ok && n > limit {
		return &ValidationError{Problems: []FieldError{{
			Field:   "jobs",
			Message: fmt.Sprintf("policy %q %s and takes at most %d jobs, got %d", policy, why, limit, n),
		}}}
	}
	return nil
}

// FieldError is one problem with one field of a problem, located by its
// JSON path as the HTTP API names it ("jobs[3].sla[1].deadline").
type FieldError struct {
	// Field is the JSON path of the offending value.
	Field string
	// JobID is the id of the job concerned, when there is one.
	JobID string
	// Message says what is wrong, for a person.
	Message string
}

func (e FieldError) Error() string {
	if e.JobID != "" {
		return fmt.Sprintf("%s (job %q): %s", e.Field, e.JobID, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

// ValidationError lists every problem found in a problem at once.
type ValidationError struct {
	Problems []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return "invalid problem: " + strings.Join(parts, "; ")
}

type problems struct{ list []FieldError }

func (ps *problems) add(field, jobID, format string, args ...any) {
	ps.list = append(ps.list, FieldError{Field: field, JobID: jobID, Message: fmt.Sprintf(format, args...)})
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	return &ValidationError{Problems: ps.list}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks every rule of docs/api.md for a phase problem and returns
// a *ValidationError listing all problems, or nil. It does not check
// policy-specific limits (see Optimal).
func Validate(p Problem) error {
	var ps problems
	if p.Slots < 1 {
		ps.add("slots", "", "must be at least 1, got %d", p.Slots)
	} else if p.Slots > MaxSlots {
		ps.add("slots", "", "must be at most %d, got %d", MaxSlots, p.Slots)
	}
	if !finite(p.Now) {
		ps.add("now", "", "must be a finite number")
	}
	if len(p.Jobs) == 0 {
		ps.add("jobs", "", "must hold at least one job")
	} else if len(p.Jobs) > MaxJobs {
		ps.add("jobs", "", "must hold at most %d jobs, got %d", MaxJobs, len(p.Jobs))
		return ps.err()
	}
	if _, ok := fairshare.ParseVariant(p.Options.FairVariant); !ok {
		ps.add("fair_variant", "", "unknown fair variant %q; one of mrv1, yarn", p.Options.FairVariant)
	}
	metric := p.Metric
	if metric == "" {
		metric = penalty.AvgResponseTime
	}
	top, ok := penalty.Lookup(metric)
	if !ok {
		ps.add("objective", "", "unknown metric %q; one of %s", metric, strings.Join(penalty.Names(), ", "))
	}
	seen := make(map[string]int, len(p.Jobs))
	for i, j := range p.Jobs {
		// The path is built only when a job has a problem: formatting it
		// for every job would dominate validation of large problems.
		var pathBuf string
		path := func() string {
			if pathBuf == "" {
				pathBuf = "jobs[" + strconv.Itoa(i) + "]"
			}
			return pathBuf
		}
		if j.ID == "" {
			ps.add(path()+".id", "", "must not be empty")
		} else if !PrintableID(j.ID) {
			ps.add(path()+".id", "", "must be valid UTF-8 without control characters, got %q", j.ID)
		} else if first, dup := seen[j.ID]; dup {
			ps.add(path()+".id", j.ID, "duplicates jobs[%d].id", first)
		} else {
			seen[j.ID] = i
		}
		if j.Min < 0 {
			ps.add(path()+".min", j.ID, "must be >= 0, got %d", j.Min)
		}
		if j.Max < 1 {
			ps.add(path()+".max", j.ID, "must be >= 1, got %d", j.Max)
		}
		if j.Demand < 0 {
			ps.add(path()+".demand", j.ID, "must be >= 0, got %d", j.Demand)
		}
		if !finite(j.Work) || j.Work <= 0 {
			ps.add(path()+".work", j.ID, "must be a finite number > 0, got %v", j.Work)
		}
		if !finite(j.Submitted) {
			ps.add(path()+".submitted", j.ID, "must be a finite number")
		}
		if !finite(j.TotalWork) || j.TotalWork < 0 {
			ps.add(path()+".total_work", j.ID, "must be a finite number >= 0, got %v", j.TotalWork)
		}
		if !finite(j.Weight) || j.Weight < 0 {
			ps.add(path()+".weight", j.ID, "must be a finite number >= 0, got %v", j.Weight)
		}
		if j.HasDeadline && !finite(j.Deadline) {
			ps.add(path()+".deadline", j.ID, "must be a finite number")
		}
		for k, s := range j.SLA {
			sp := path() + ".sla[" + strconv.Itoa(k) + "]"
			if !finite(s.Deadline) {
				ps.add(sp+".deadline", j.ID, "must be a finite number")
			} else if k > 0 && !(s.Deadline > j.SLA[k-1].Deadline) {
				ps.add(sp+".deadline", j.ID, "SLA deadlines must be strictly increasing: %v after %v", s.Deadline, j.SLA[k-1].Deadline)
			}
			if !finite(s.Penalty) || s.Penalty < 0 {
				ps.add(sp+".penalty", j.ID, "must be a finite number >= 0, got %v", s.Penalty)
			} else if k > 0 && s.Penalty < j.SLA[k-1].Penalty {
				ps.add(sp+".penalty", j.ID, "SLA penalties must be non-decreasing: %v after %v", s.Penalty, j.SLA[k-1].Penalty)
			}
		}
		in := top
		if j.Metric != "" && j.Metric != metric {
			jm, ok := penalty.Lookup(j.Metric)
			if !ok {
				ps.add(path()+".objective", j.ID, "unknown metric %q", j.Metric)
				continue
			}
			if jm.Aggregate != top.Aggregate && top.Name != "" {
				ps.add(path()+".objective", j.ID, "metric %q aggregates by %s but the problem's %q by %s; all jobs must share one aggregate", j.Metric, jm.Aggregate, metric, top.Aggregate)
			}
			in = jm
		}
		if in.Name == "" {
			continue
		}
		if in.NeedsDeadline && !j.HasDeadline {
			ps.add(path()+".deadline", j.ID, "metric %q needs a deadline", in.Name)
		}
		if in.NeedsSLA && len(j.SLA) == 0 {
			ps.add(path()+".sla", j.ID, "metric %q needs at least one SLA step", in.Name)
		}
	}
	return ps.err()
}

// instance is a validated, normalised problem: what every policy works on.
// Jobs are held in canonical order (sorted by id) so that every tie-break by
// index is a tie-break by id, which makes every policy deterministic under
// permutation of the input; orig maps back to the request's order.
type instance struct {
	p       Problem
	jobs    []Job // canonical order
	orig    []int // orig[k] is the request index of canonical job k
	slots   int
	now     float64
	agg     penalty.Aggregate
	metric  penalty.Metric   // the problem's metric
	metrics []penalty.Metric // per job
	pj      []penalty.Job    // what the penalty functions read
	// fn is each job's penalty function, its metric resolved once: the
	// searches evaluate them millions of times.
	fn       []penalty.Func
	min, max []int // effective bounds after normalisation and clamping
	work     []float64
	// normalized marks jobs whose minimum was scaled down; demandCap marks
	// jobs whose effective max is their remaining demand.
	normalized, demandCap []bool
	anyNormalized         bool
}

// newInstance validates p and normalises it (docs/algorithms.md section 1):
// max clamped to S (and to Demand when given), min clamped to max, and
// minima scaled by S / sum(min) when they exceed S, rounded down, with the
// remainder handed out by largest remainder (ties: earlier submitted, then
// id).
func newInstance(p Problem) (*instance, error) {
	if err := Validate(p); err != nil {
		return nil, err
	}
	n := len(p.Jobs)
	in := &instance{
		p: p, slots: p.Slots, now: p.Now,
		jobs:       make([]Job, n),
		metric:     p.Metric,
		metrics:    make([]penalty.Metric, n),
		pj:         make([]penalty.Job, n),
		fn:         make([]penalty.Func, n),
		min:        make([]int, n),
		max:        make([]int, n),
		work:       make([]float64, n),
		normalized: make([]bool, n),
		demandCap:  make([]bool, n),
	}
	in.orig = sortedByID(n, func(i int) string { return p.Jobs[i].ID })
	if in.metric == "" {
		in.metric = penalty.AvgResponseTime
	}
	info, _ := penalty.Lookup(in.metric)
	in.agg = info.Aggregate
	sumMin := 0
	for k, i := range in.orig {
		j := p.Jobs[i]
		in.jobs[k] = j
		mx := min(j.Max, p.Slots)
		if j.Demand > 0 && j.Demand < mx {
			mx = j.Demand
			in.demandCap[k] = true
		}
		in.max[k] = mx
		in.min[k] = min(j.Min, mx)
		sumMin += in.min[k]
		in.work[k] = j.Work
		in.metrics[k] = in.metric
		if j.Metric != "" {
			in.metrics[k] = j.Metric
		}
		total := j.TotalWork
		if total == 0 {
			total = j.Work
		}
		in.pj[k] = penalty.Job{
			Submitted:   j.Submitted,
			Weight:      j.Weight,
			Deadline:    j.Deadline,
			HasDeadline: j.HasDeadline,
			Iso:         total / float64(min(j.Max, p.Slots)),
			SLA:         j.SLA,
		}
		in.fn[k] = in.metrics[k].For(in.pj[k])
	}
	if sumMin > p.Slots {
		in.normalizeMinima(sumMin)
	}
	return in, nil
}

func (in *instance) normalizeMinima(sumMin int) {
	n := len(in.min)
	type rem struct {
		k    int
		frac float64
	}
	rs := make([]rem, 0, n)
	given := 0
	scale := float64(in.slots) / float64(sumMin)
	for k, m := range in.min {
		exact := float64(m) * scale
		f := int(math.Floor(exact))
		rs = append(rs, rem{k, exact - float64(f)})
		in.min[k] = f
		given += f
	}
	// Canonical order is id order, so a stable sort by (fraction desc,
	// submitted asc) breaks the last ties by id.
	sort.SliceStable(rs, func(a, b int) bool {
		ra, rb := rs[a], rs[b]
		if ra.frac != rb.frac {
			return ra.frac > rb.frac
		}
		return in.jobs[ra.k].Submitted < in.jobs[rb.k].Submitted
	})
	for x := 0; given < in.slots && x < len(rs); x++ {
		in.min[rs[x].k]++
		given++
	}
	for k := range in.min {
		in.normalized[k] = in.min[k] < min(in.jobs[k].Min, in.max[k])
	}
	in.anyNormalized = true
}

// cost evaluates the objective of completion times (canonical order) with
// package penalty.
// It computes what penalty.Cost computes without allocating, because the
// exhaustive search calls it millions of times; a test keeps the two equal.
func (in *instance) cost(completions []float64) float64 {
	if in.agg == penalty.Max {
		v := math.Inf(-1)
		for k, c := range completions {
			v = math.Max(v, in.fn[k].At(c))
		}
		return v
	}
	v := 0.0
	for k, c := range completions {
		v += in.fn[k].At(c)
	}
	return v
}

// reasons explains the first interval's slots (see Reason), in canonical
// order. orderBased is true for MPS policies, where the one job strictly
// between its bounds took the rest of the slack.
func (in *instance) reason(k, s int, orderBased bool) Reason {
	switch {
	case in.normalized[k] && s == in.min[k]:
		return ReasonNormalized
	case s == in.max[k] && in.demandCap[k]:
		return ReasonDemand
	case s == in.max[k] && s > in.min[k]:
		return ReasonMax
	case s == in.min[k]:
		return ReasonMin
	case orderBased:
		return ReasonPartial
	}
	return ReasonPriority
}

// result assembles a Result from a plan in canonical order, mapping every
// job index back to the request's order. order is the winning priority
// order in canonical indexes (nil for FAIR). plan becomes the result's:
// its intervals are renumbered in place (a copy per interval was a third
// of a FAIR solve's memory at J = 10,000), so the caller must not use it
// after.
func (in *instance) result(policy, scheme string, plan Plan, order []int, orderBased bool) Result {
	v := in.cost(plan.Completions)
	mean := v
	if in.agg == penalty.Sum {
		mean = v / float64(len(plan.Completions))
	}
	n := len(in.jobs)
	out := Result{
		Policy:           policy,
		Metric:           in.metric,
		Aggregate:        in.agg,
		Value:            v,
		Mean:             mean,
		Scheme:           scheme,
		NormalizedMinima: in.anyNormalized,
		Allocations:      make([]Allocation, n),
	}
	first := plan.First
	if len(first) != n {
		first = make([]int, n)
	}
	for k, s := range first {
		out.Allocations[in.orig[k]] = Allocation{ID: in.jobs[k].ID, Slots: s, Reason: in.reason(k, s, orderBased)}
	}
	out.Plan = Plan{
		Completions: make([]float64, n),
		First:       make([]int, n),
		Intervals:   plan.Intervals,
	}
	for k := range plan.Completions {
		out.Plan.Completions[in.orig[k]] = plan.Completions[k]
		out.Plan.First[in.orig[k]] = first[k]
	}
	if out.Plan.Intervals == nil {
		out.Plan.Intervals = []mps.Interval{} // as the copy was: empty, not absent
	}
	for _, iv := range plan.Intervals {
		for y, c := range iv.Changes {
			iv.Changes[y].Job = in.orig[c.Job]
		}
	}
	if order != nil {
		out.Order = make([]int, len(order))
		for x, k := range order {
			out.Order[x] = in.orig[k]
		}
	}
	return out
}

// Objective evaluates p's objective for completion times given in p's job
// order, with the same definitions every policy reports (package penalty).
// It lets a caller score one plan under several metrics: FAIR's and FIFO's
// plans do not depend on the metric.
func Objective(p Problem, completions []float64) (float64, error) {
	in, err := newInstance(p)
	if err != nil {
		return 0, err
	}
	if len(completions) != len(p.Jobs) {
		return 0, fmt.Errorf("objective: %d completion times for %d jobs", len(completions), len(p.Jobs))
	}
	canon := make([]float64, len(completions))
	for k, i := range in.orig {
		canon[k] = completions[i]
	}
	return in.cost(canon), nil
}

// PrintableID reports whether an id is valid UTF-8 without control
// characters: ids are stored (PostgreSQL's text refuses a NUL), indexed
// and printed, and nothing a scheduler names a job needs more.
func PrintableID(id string) bool {
	return utf8.ValidString(id) && !strings.ContainsFunc(id, unicode.IsControl)
}
