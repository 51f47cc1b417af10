package solver

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/flexd/flexd/penalty"
)

// Limits a problem must respect before any work is done.
const (
	// MaxJobs is the most jobs one problem may hold.
	MaxJobs = 100_000
	// MaxSlots is the most slots one problem may hold.
	MaxSlots = 10_000_000
	// MaxOptimalJobs is the most jobs the exhaustive "optimal" policy takes.
	MaxOptimalJobs = 10
)

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
		path := fmt.Sprintf("jobs[%d]", i)
		if j.ID == "" {
			ps.add(path+".id", "", "must not be empty")
		} else if first, dup := seen[j.ID]; dup {
			ps.add(path+".id", j.ID, "duplicates jobs[%d].id", first)
		} else {
			seen[j.ID] = i
		}
		if j.Min < 0 {
			ps.add(path+".min", j.ID, "must be >= 0, got %d", j.Min)
		}
		if j.Max < 1 {
			ps.add(path+".max", j.ID, "must be >= 1, got %d", j.Max)
		}
		if j.Demand < 0 {
			ps.add(path+".demand", j.ID, "must be >= 0, got %d", j.Demand)
		}
		if !finite(j.Work) || j.Work <= 0 {
			ps.add(path+".work", j.ID, "must be a finite number > 0, got %v", j.Work)
		}
		if !finite(j.Submitted) {
			ps.add(path+".submitted", j.ID, "must be a finite number")
		}
		if !finite(j.TotalWork) || j.TotalWork < 0 {
			ps.add(path+".total_work", j.ID, "must be a finite number >= 0, got %v", j.TotalWork)
		}
		if !finite(j.Weight) || j.Weight < 0 {
			ps.add(path+".weight", j.ID, "must be a finite number >= 0, got %v", j.Weight)
		}
		if j.HasDeadline && !finite(j.Deadline) {
			ps.add(path+".deadline", j.ID, "must be a finite number")
		}
		for k, s := range j.SLA {
			sp := fmt.Sprintf("%s.sla[%d]", path, k)
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
				ps.add(path+".objective", j.ID, "unknown metric %q", j.Metric)
				continue
			}
			if jm.Aggregate != top.Aggregate && top.Name != "" {
				ps.add(path+".objective", j.ID, "metric %q aggregates by %s but the problem's %q by %s; all jobs must share one aggregate", j.Metric, jm.Aggregate, metric, top.Aggregate)
			}
			in = jm
		}
		if in.Name == "" {
			continue
		}
		if in.NeedsDeadline && !j.HasDeadline {
			ps.add(path+".deadline", j.ID, "metric %q needs a deadline", in.Name)
		}
		if in.NeedsSLA && len(j.SLA) == 0 {
			ps.add(path+".sla", j.ID, "metric %q needs at least one SLA step", in.Name)
		}
	}
	return ps.err()
}

// instance is a validated, normalised problem: what every policy works on.
// Slices are indexed like Problem.Jobs.
type instance struct {
	p        Problem
	slots    int
	now      float64
	agg      penalty.Aggregate
	metric   penalty.Metric   // the problem's metric
	metrics  []penalty.Metric // per job
	pj       []penalty.Job    // what the penalty functions read
	min, max []int            // effective bounds after normalisation and clamping
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
		metric:     p.Metric,
		metrics:    make([]penalty.Metric, n),
		pj:         make([]penalty.Job, n),
		min:        make([]int, n),
		max:        make([]int, n),
		work:       make([]float64, n),
		normalized: make([]bool, n),
		demandCap:  make([]bool, n),
	}
	if in.metric == "" {
		in.metric = penalty.AvgResponseTime
	}
	info, _ := penalty.Lookup(in.metric)
	in.agg = info.Aggregate
	sumMin := 0
	for i, j := range p.Jobs {
		mx := min(j.Max, p.Slots)
		if j.Demand > 0 && j.Demand < mx {
			mx = j.Demand
			in.demandCap[i] = true
		}
		in.max[i] = mx
		in.min[i] = min(j.Min, mx)
		sumMin += in.min[i]
		in.work[i] = j.Work
		in.metrics[i] = in.metric
		if j.Metric != "" {
			in.metrics[i] = j.Metric
		}
		total := j.TotalWork
		if total == 0 {
			total = j.Work
		}
		in.pj[i] = penalty.Job{
			Submitted:   j.Submitted,
			Weight:      j.Weight,
			Deadline:    j.Deadline,
			HasDeadline: j.HasDeadline,
			Iso:         total / float64(min(j.Max, p.Slots)),
			SLA:         j.SLA,
		}
	}
	if sumMin > p.Slots {
		in.normalizeMinima(sumMin)
	}
	return in, nil
}

func (in *instance) normalizeMinima(sumMin int) {
	n := len(in.min)
	type rem struct {
		i    int
		frac float64
	}
	rs := make([]rem, 0, n)
	given := 0
	scale := float64(in.slots) / float64(sumMin)
	for i, m := range in.min {
		exact := float64(m) * scale
		f := int(math.Floor(exact))
		rs = append(rs, rem{i, exact - float64(f)})
		if f < m {
			in.normalized[i] = true
		}
		in.min[i] = f
		given += f
	}
	sort.SliceStable(rs, func(a, b int) bool {
		ra, rb := rs[a], rs[b]
		if ra.frac != rb.frac {
			return ra.frac > rb.frac
		}
		ja, jb := in.p.Jobs[ra.i], in.p.Jobs[rb.i]
		if ja.Submitted != jb.Submitted {
			return ja.Submitted < jb.Submitted
		}
		return ja.ID < jb.ID
	})
	for k := 0; given < in.slots && k < len(rs); k++ {
		in.min[rs[k].i]++
		given++
	}
	for i := range in.min {
		if in.min[i] >= min(in.p.Jobs[i].Min, in.max[i]) {
			in.normalized[i] = false
		}
	}
	in.anyNormalized = true
}

// cost evaluates the objective of completion times with package penalty.
func (in *instance) cost(completions []float64) float64 {
	return penalty.Cost(in.agg, in.metrics, in.pj, completions)
}

// reasons explains the first interval's slots (see Reason). orderBased is
// true for MPS policies, where the one job strictly between its bounds
// took the rest of the slack.
func (in *instance) reasons(first []int, orderBased bool) []Allocation {
	out := make([]Allocation, len(first))
	for i, s := range first {
		r := ReasonPriority
		switch {
		case in.normalized[i] && s == in.min[i]:
			r = ReasonNormalized
		case s == in.max[i] && in.demandCap[i]:
			r = ReasonDemand
		case s == in.max[i] && s > in.min[i]:
			r = ReasonMax
		case s == in.min[i]:
			r = ReasonMin
		case orderBased:
			r = ReasonPartial
		}
		out[i] = Allocation{ID: in.p.Jobs[i].ID, Slots: s, Reason: r}
	}
	return out
}

// result assembles the common part of a Result from a plan.
func (in *instance) result(policy string, plan Plan, orderBased bool) Result {
	v := in.cost(plan.Completions)
	mean := v
	if in.agg == penalty.Sum {
		mean = v / float64(len(plan.Completions))
	}
	return Result{
		Policy:           policy,
		Metric:           in.metric,
		Aggregate:        in.agg,
		Value:            v,
		Mean:             mean,
		Allocations:      in.reasons(plan.First, orderBased),
		Plan:             plan,
		NormalizedMinima: in.anyNormalized,
	}
}
