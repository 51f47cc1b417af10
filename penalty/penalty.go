// Package penalty owns flexd's metric menu: the per-job penalty functions of
// FLEX section 2.1 (Wolf et al., Middleware 2010, Fig. 1), the aggregate that
// combines them (sum for minisum problems, max for minimax problems) and the
// cost of a schedule given each job's completion time.
//
// Times are seconds on the caller's clock; work is slot-seconds. The names of
// the metrics are part of the HTTP API (docs/algorithms.md section 2).
//
// The package is pure: no I/O, clock or global state beyond the immutable
// metric table.
package penalty

import (
	"math"
	"sort"
)

// Metric names one per-job penalty function together with its aggregate.
type Metric string

// The metric menu (docs/algorithms.md section 2). C is the job's completion
// time, r its submission time, w its weight, d its deadline, all in seconds
// except w, which is dimensionless.
const (
	// AvgResponseTime is sum_j (C_j - r_j), seconds (FLEX 2.1, Fig. 1a).
	AvgResponseTime Metric = "avg_response_time"
	// WeightedResponseTime is sum_j w_j (C_j - r_j), weighted seconds (FLEX 2.1, Fig. 1a).
	WeightedResponseTime Metric = "weighted_response_time"
	// MaxResponseTime is max_j (C_j - r_j), seconds (FLEX 2.1, Fig. 1a, minimax).
	MaxResponseTime Metric = "max_response_time"
	// Makespan is max_j C_j, seconds on the caller's clock (FLEX 2.1).
	Makespan Metric = "makespan"
	// MaxWeightedResponseTime is max_j w_j (C_j - r_j), weighted seconds (FLEX 2.1).
	MaxWeightedResponseTime Metric = "max_weighted_response_time"
	// AvgStretch is sum_j (C_j - r_j) / iso_j, dimensionless, where iso_j =
	// total_work_j / min(M_j, S) is the job's time alone on the cluster (FLEX 2.1).
	AvgStretch Metric = "avg_stretch"
	// MaxStretch is max_j (C_j - r_j) / iso_j, dimensionless (FLEX 2.1).
	MaxStretch Metric = "max_stretch"
	// TardyJobs is the number of jobs with C_j > d_j (FLEX 2.1, Fig. 1b).
	TardyJobs Metric = "tardy_jobs"
	// WeightedTardyJobs is sum_j w_j [C_j > d_j] (FLEX 2.1, Fig. 1b).
	WeightedTardyJobs Metric = "weighted_tardy_jobs"
	// AvgTardiness is sum_j max(0, C_j - d_j), seconds (FLEX 2.1, Fig. 1c).
	AvgTardiness Metric = "avg_tardiness"
	// WeightedTardiness is sum_j w_j max(0, C_j - d_j), weighted seconds (FLEX 2.1, Fig. 1c).
	WeightedTardiness Metric = "weighted_tardiness"
	// MaxTardiness is max_j max(0, C_j - d_j), seconds (FLEX 2.1, Fig. 1c).
	MaxTardiness Metric = "max_tardiness"
	// MaxWeightedTardiness is max_j w_j max(0, C_j - d_j), weighted seconds (FLEX 2.1).
	MaxWeightedTardiness Metric = "max_weighted_tardiness"
	// AvgLateness is sum_j (C_j - d_j), seconds; may be negative (FLEX 2.1, Fig. 1d).
	AvgLateness Metric = "avg_lateness"
	// MaxLateness is max_j (C_j - d_j), seconds; may be negative (FLEX 2.1, Fig. 1d).
	MaxLateness Metric = "max_lateness"
	// MaxWeightedLateness is max_j w_j (C_j - d_j), weighted seconds (FLEX 2.1).
	MaxWeightedLateness Metric = "max_weighted_lateness"
	// SLACost is sum_j p_{k,j} for the last SLA step k with C_j > d_{k,j}, 0
	// when C_j <= d_{1,j} (FLEX 2.1, Fig. 1e).
	SLACost Metric = "sla_cost"
)

// Aggregate says how per-job penalties combine into the objective.
type Aggregate string

// The two aggregates: minisum and minimax problems (FLEX 2.1).
const (
	Sum Aggregate = "sum"
	Max Aggregate = "max"
)

// Info describes a metric for clients (GET /v1/metrics) and for the solver's
// choice of algorithm.
type Info struct {
	Name      Metric
	Aggregate Aggregate
	// NeedsDeadline, NeedsSLA and UsesWeight say which job fields the metric reads.
	NeedsDeadline bool
	NeedsSLA      bool
	UsesWeight    bool
	// NeedsIso is true for stretch metrics, which read total work and the cap.
	NeedsIso bool
	// Convex is true when the per-job penalty, as a function of the slots a
	// job holds in the moldable problem (C = now + W/s), has non-increasing
	// marginal gains: the RAP is then solved exactly by Fox's greedy. W/s is
	// convex in s, and so is any non-decreasing convex function of it, which
	// makes tardiness convex too (max(0, .) of a convex function); only the
	// step metrics are not.
	Convex bool
	// Step is true for step-function penalties (tardy jobs, SLA costs),
	// where orders tie on plateaus.
	Step bool
	// Doc is a one-line description with the formula and units.
	Doc string
}

var menu = []Info{
	{AvgResponseTime, Sum, false, false, false, false, true, false, "sum of (C - r), seconds"},
	{WeightedResponseTime, Sum, false, false, true, false, true, false, "sum of w (C - r), weighted seconds"},
	{MaxResponseTime, Max, false, false, false, false, true, false, "max of (C - r), seconds"},
	{Makespan, Max, false, false, false, false, true, false, "max of C, seconds"},
	{MaxWeightedResponseTime, Max, false, false, true, false, true, false, "max of w (C - r), weighted seconds"},
	{AvgStretch, Sum, false, false, false, true, true, false, "sum of (C - r) / iso, iso = total_work / min(max, slots)"},
	{MaxStretch, Max, false, false, false, true, true, false, "max of (C - r) / iso"},
	{TardyJobs, Sum, true, false, false, false, false, true, "number of jobs with C > d"},
	{WeightedTardyJobs, Sum, true, false, true, false, false, true, "sum of w over jobs with C > d"},
	{AvgTardiness, Sum, true, false, false, false, true, false, "sum of max(0, C - d), seconds"},
	{WeightedTardiness, Sum, true, false, true, false, true, false, "sum of w max(0, C - d), weighted seconds"},
	{MaxTardiness, Max, true, false, false, false, true, false, "max of max(0, C - d), seconds"},
	{MaxWeightedTardiness, Max, true, false, true, false, true, false, "max of w max(0, C - d), weighted seconds"},
	{AvgLateness, Sum, true, false, false, false, true, false, "sum of (C - d), seconds"},
	{MaxLateness, Max, true, false, false, false, true, false, "max of (C - d), seconds"},
	{MaxWeightedLateness, Max, true, false, true, false, true, false, "max of w (C - d), weighted seconds"},
	{SLACost, Sum, false, true, false, false, false, true, "sum of the SLA step penalty reached by C"},
}

var byName = func() map[Metric]Info {
	m := make(map[Metric]Info, len(menu))
	for _, in := range menu {
		m[in.Name] = in
	}
	return m
}()

// Lookup returns the description of a metric and whether it exists.
func Lookup(m Metric) (Info, bool) {
	in, ok := byName[m]
	return in, ok
}

// All returns the metric menu in a stable order (the order of
// docs/algorithms.md section 2). The slice is a copy.
func All() []Info {
	out := make([]Info, len(menu))
	copy(out, menu)
	return out
}

// Names returns the metric names sorted alphabetically.
func Names() []string {
	out := make([]string, len(menu))
	for i, in := range menu {
		out[i] = string(in.Name)
	}
	sort.Strings(out)
	return out
}

// Step is one SLA step: completing after Deadline costs Penalty (FLEX Fig. 1e).
type Step struct {
	Deadline float64 // seconds, caller's clock
	Penalty  float64 // cost units
}

// Job holds what a penalty function reads of one job.
type Job struct {
	Submitted float64 // r, seconds
	Weight    float64 // w, dimensionless (callers default it to 1)
	Deadline  float64 // d, seconds; meaningful only when HasDeadline
	// HasDeadline distinguishes "no deadline" from a deadline at time 0.
	HasDeadline bool
	// Iso is the job's time alone on the cluster, total_work / min(max, S),
	// seconds; used by the stretch metrics. Must be > 0 for them.
	Iso float64
	SLA []Step // strictly increasing deadlines, non-decreasing penalties
}

// Of returns the penalty of completing job j at time c under metric m.
// It returns NaN for an unknown metric; validation rejects those first.
func (m Metric) Of(j Job, c float64) float64 {
	f := m.For(j)
	return f.At(c)
}

// shape is a metric's formula, resolved once from its name so that a
// penalty evaluated many times does not compare strings each time.
type shape uint8

const (
	unknownShape shape = iota
	responseShape
	weightedResponseShape
	makespanShape
	stretchShape
	tardyShape
	weightedTardyShape
	tardinessShape
	weightedTardinessShape
	latenessShape
	weightedLatenessShape
	slaShape
)

// shapeOf resolves a metric's name to its formula.
func shapeOf(m Metric) shape {
	switch m {
	case AvgResponseTime, MaxResponseTime:
		return responseShape
	case WeightedResponseTime, MaxWeightedResponseTime:
		return weightedResponseShape
	case Makespan:
		return makespanShape
	case AvgStretch, MaxStretch:
		return stretchShape
	case TardyJobs:
		return tardyShape
	case WeightedTardyJobs:
		return weightedTardyShape
	case AvgTardiness, MaxTardiness:
		return tardinessShape
	case WeightedTardiness, MaxWeightedTardiness:
		return weightedTardinessShape
	case AvgLateness, MaxLateness:
		return latenessShape
	case MaxWeightedLateness:
		return weightedLatenessShape
	case SLACost:
		return slaShape
	}
	return unknownShape
}

// Func is one job's penalty under one metric, as a function of the job's
// completion time: Metric.Of with the metric's name resolved once. A solver
// scoring thousands of schedules per solve holds one Func per job.
type Func struct {
	shape shape
	job   Job
}

// For returns job j's penalty function under m.
func (m Metric) For(j Job) Func { return Func{shapeOf(m), j} }

// At returns the penalty of completing at time c (NaN for an unknown
// metric).
func (f *Func) At(c float64) float64 {
	j := &f.job
	switch f.shape {
	case responseShape:
		return c - j.Submitted
	case weightedResponseShape:
		return j.Weight * (c - j.Submitted)
	case makespanShape:
		return c
	case stretchShape:
		return (c - j.Submitted) / j.Iso
	case tardyShape:
		if c > j.Deadline {
			return 1
		}
		return 0
	case weightedTardyShape:
		if c > j.Deadline {
			return j.Weight
		}
		return 0
	case tardinessShape:
		// Not math.Max, whose care for NaN and signed zeros the
		// searches pay for at every call; a NaN completion is 0 here.
		if c > j.Deadline {
			return c - j.Deadline
		}
		return 0
	case weightedTardinessShape:
		if c > j.Deadline {
			return j.Weight * (c - j.Deadline)
		}
		return 0
	case latenessShape:
		return c - j.Deadline
	case weightedLatenessShape:
		return j.Weight * (c - j.Deadline)
	case slaShape:
		p := 0.0
		for _, s := range j.SLA {
			if c > s.Deadline {
				p = s.Penalty
			} else {
				break
			}
		}
		return p
	}
	return math.NaN()
}

// Combine folds per-job penalties with the aggregate: their sum, or their
// maximum (0 for no jobs under Sum, -Inf under Max).
func Combine(agg Aggregate, penalties []float64) float64 {
	if agg == Max {
		v := math.Inf(-1)
		for _, p := range penalties {
			v = math.Max(v, p)
		}
		return v
	}
	v := 0.0
	for _, p := range penalties {
		v += p
	}
	return v
}

// Cost returns the objective of a schedule: metrics[i] applied to jobs[i]
// completing at completions[i], combined with agg. metrics may hold a
// single metric that applies to every job (per-job overrides otherwise).
// The three slices must have equal lengths (metrics may have length 1).
func Cost(agg Aggregate, metrics []Metric, jobs []Job, completions []float64) float64 {
	ps := make([]float64, len(jobs))
	for i := range jobs {
		m := metrics[0]
		if len(metrics) > 1 {
			m = metrics[i]
		}
		ps[i] = m.Of(jobs[i], completions[i])
	}
	return Combine(agg, ps)
}
