// Package solver owns one phase problem of FLEX (Wolf et al., Middleware
// 2010): S interchangeable slots shared by J jobs, each with a minimum and a
// maximum number of slots, remaining work and a penalty on its completion
// time. A Solver returns how many slots each job holds now and the whole
// malleable plan behind that answer.
//
// Policies sit behind the small Solver interface and are chosen by name with
// ByName: "flex" (the FLEX driver of section 3), "fair" (Hadoop's fair
// share), "fifo" (MPS in arrival order) and "optimal" (exhaustive over MPS
// orders, J <= 10). Every policy validates and normalises the problem the
// same way (docs/algorithms.md section 1) and reports the objective
// recomputed from its plan with package penalty.
//
// The package is pure: no I/O, no clock, no globals. Effort limits are
// counted in work done (MPS evaluations, DP cells), never in wall time, so
// a result depends on its input only.
package solver

import (
	"errors"
	"fmt"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver/mps"
)

// Job is one job of a phase problem.
type Job struct {
	// ID identifies the job; unique and non-empty within a problem.
	ID string
	// Min and Max bound the job's slots: 0 <= Min, 1 <= Max. Max is clamped
	// to the problem's slots and Min to Max (docs/algorithms.md section 1).
	Min, Max int
	// Demand, when positive, is the job's remaining demand in slots (pending
	// plus running tasks); Max is clamped to it and the job's reason says
	// "demand" when that clamp binds. Zero means unknown.
	Demand int
	// Work is the remaining work in slot-seconds: > 0 and finite.
	Work float64
	// Submitted is the job's arrival time, seconds on the caller's clock.
	Submitted float64
	// TotalWork is the job's whole work in slot-seconds, for stretch; zero
	// means Work.
	TotalWork float64
	// Weight is the job's weight, >= 0 and finite. The wire layer defaults
	// it to 1; here zero means zero.
	Weight float64
	// Deadline is the job's deadline (seconds, caller's clock), meaningful
	// only when HasDeadline.
	Deadline    float64
	HasDeadline bool
	// SLA lists SLA steps: deadlines strictly increasing, penalties
	// non-decreasing.
	SLA []penalty.Step
	// Metric overrides the problem's metric for this job; empty means the
	// problem's. All jobs must share one aggregate.
	Metric penalty.Metric
}

// Problem is one phase problem.
type Problem struct {
	// Slots is S, the number of slots to share: >= 1.
	Slots int
	// Now is the start of the epoch, seconds on the caller's clock.
	Now float64
	// Metric is the objective (default penalty.AvgResponseTime).
	Metric penalty.Metric
	Jobs   []Job
	// Options tune the policies; the zero value means defaults.
	Options Options
}

// Options tune a solve. The zero value is the default everywhere.
type Options struct {
	// Explain asks for every candidate order tried and its value.
	Explain bool
	// FairVariant selects Hadoop's fair-share computation for "fair":
	// "mrv1" (default) or "yarn" (docs/fair-share.md).
	FairVariant string
	// SearchEvaluations caps the MPS evaluations of FLEX's local search; 0
	// means a default that scales down with J (see flex.go), negative
	// disables local search.
	SearchEvaluations int
	// Cancel, when closed, stops a long solve (the exhaustive "optimal")
	// with ErrCanceled: a server closes it when the request's deadline
	// passes, so a timed-out solve stops working. Closing a channel is not
	// a clock, so the solve stays a function of its input when it is not
	// closed.
	Cancel <-chan struct{}
	// Effort scales FLEX's search: 0 means DefaultEffort; n >= 1
	// multiplies the default budget by n; FastestEffort skips the local
	// search (the best candidate order is the answer). It has no effect
	// when SearchEvaluations is set.
	Effort int
	// DPCells caps the cells of the non-convex knapsack DP; 0 means the
	// default (about 5e7), past which FLEX falls back to a greedy order.
	DPCells int
	// SearchSeed varies the random kicks of FLEX's iterated searches (0,
	// the default, is what the service always solves with): the answer is
	// a function of the problem and the seed. It is for measuring how much
	// of a result the kicks decide (flexd simulate study --search-seeds),
	// not an API field.
	SearchSeed uint64
}

// The search efforts (Options.Effort, the API's effort).
const (
	// FastestEffort skips FLEX's local search: the API's effort 0.
	FastestEffort = -1
	// DefaultEffort is the default budget, sized so that a solve stays in
	// milliseconds up to J = 200 (docs/solver-at-scale.md).
	DefaultEffort = 1
	// MaxEffort bounds the multiplier a caller may ask for: a solve at
	// MaxEffort costs MaxEffort times the default, which the API's request
	// limits must keep affordable.
	MaxEffort = 16
)

// Reason says why a job holds the slots it holds in the first interval.
type Reason string

// The reasons, in the order they are tested (first match wins).
const (
	// ReasonNormalized: the job holds its minimum, scaled down because the
	// minima exceeded the slots (FLEX 3.1).
	ReasonNormalized Reason = "normalized"
	// ReasonDemand: the job holds its maximum, clamped to its remaining demand.
	ReasonDemand Reason = "demand"
	// ReasonMax: the job holds its maximum (it can use no more).
	ReasonMax Reason = "max"
	// ReasonMin: the job holds its minimum (others came first for the slack).
	ReasonMin Reason = "min"
	// ReasonPartial: in an order-based policy (MPS), the one job that took
	// the rest of the slack, between its minimum and maximum.
	ReasonPartial Reason = "partial"
	// ReasonPriority: between minimum and maximum by the policy's own
	// sharing rule (FAIR's weighted water level).
	ReasonPriority Reason = "priority"
)

// Allocation is one job's slots now.
type Allocation struct {
	ID     string
	Slots  int
	Reason Reason
}

// Plan is the malleable schedule behind an answer (see mps.Plan).
type Plan = mps.Plan

// Candidate is one order FLEX tried, with its objective value.
type Candidate struct {
	Scheme string
	Value  float64
}

// Result is a solve's answer.
type Result struct {
	// Policy is the policy's name.
	Policy string
	// Metric and Aggregate describe the objective; per-job overrides share
	// the aggregate.
	Metric    penalty.Metric
	Aggregate penalty.Aggregate
	// Value is the objective of Plan, computed by package penalty from the
	// plan's completion times; Mean is Value / J for sums, Value for max.
	Value, Mean float64
	// Allocations are the first interval, in the problem's job order.
	Allocations []Allocation
	Plan        Plan
	// Scheme names the order that won ("generic_rap", "srpt", ...); Order
	// is that priority order as indexes into Problem.Jobs. FAIR reports
	// scheme "fair" and no order.
	Scheme string
	Order  []int
	// NormalizedMinima is true when the minima exceeded the slots and were
	// scaled down.
	NormalizedMinima bool
	// Candidates lists every order tried, when Options.Explain is set.
	Candidates []Candidate
	// FairShares are Hadoop's fair shares on the raw numbers, one per job in
	// problem order, for policy "fair" (docs/fair-share.md).
	FairShares []float64
	// Stats counts the work done.
	Stats Stats
}

// Stats counts a solve's effort, for benchmarks and explain.
type Stats struct {
	// Evaluations is the number of MPS schedules built and scored.
	Evaluations int
	// DPCells is the number of knapsack DP cells filled.
	DPCells int
	// DPFallback is true when the DP hit its budget and a greedy order
	// replaced it.
	DPFallback bool
}

// Solver is one allocation policy.
type Solver interface {
	// Name is the policy's registry name.
	Name() string
	// Solve validates p, solves it and returns the answer, or an error:
	// *ValidationError for a bad problem, never a panic.
	Solve(p Problem) (Result, error)
}

// Names lists the policies ByName knows, in a stable order.
func Names() []string { return []string{"flex", "fair", "fifo", "optimal"} }

// ByName returns the policy with the given name.
func ByName(name string) (Solver, bool) {
	switch name {
	case "flex", "":
		return Flex{}, true
	case "fair":
		return Fair{}, true
	case "fifo":
		return FIFO{}, true
	case "optimal":
		return Optimal{}, true
	}
	return nil, false
}

// EffortOption converts the API's effort (nil: the default; 0: the
// fastest answer; n in 1..MaxEffort: n times the default search) to
// Options.Effort, or says why it is out of range.
func EffortOption(effort *int) (int, error) {
	switch {
	case effort == nil:
		return 0, nil
	case *effort == 0:
		return FastestEffort, nil
	case *effort < 0 || *effort > MaxEffort:
		return 0, fmt.Errorf("must be an integer in [0, %d], got %d", MaxEffort, *effort)
	}
	return *effort, nil
}

// ErrCanceled is returned by a solve stopped through Options.Cancel.
var ErrCanceled = errors.New("solve canceled")
