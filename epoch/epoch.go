// Package epoch owns one epoch of a cluster: the domain form of the shim's
// request (POST /v1/clusters/{cluster}/epochs in docs/api.md), its
// validation, its normalisation into one solver.Problem per phase, and
// Decide, which runs the phase budgets (docs/algorithms.md section 7) and
// each phase's policy on its budget and returns the decision together with
// the cluster's next state.
//
// The types here are not the wire types: the HTTP layer decodes JSON into
// its own types and converts them, mapping absent JSON fields onto the
// documented zero values and nil pointers below. Every FieldError, though,
// names the offending value by its wire JSON path ("jobs[3].map.work"), so
// the HTTP layer can list them as they are.
//
// The package is pure: no I/O, clock, randomness, globals or logging, so the
// HTTP handler, `flexd replay`, the simulator and the tests get the same
// answer from the same input. Identifiers that need randomness (the
// decision id) are the caller's.
package epoch

import (
	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/ratio"
	"github.com/flexd/flexd/solver"
)

// Defaults of optional request fields, as docs/api.md and
// docs/algorithms.md section 7 state them.
const (
	// DefaultPolicy is the policy of a request that names none.
	DefaultPolicy = "flex"
	// DefaultBorrow is DynamicMR's percentageOfBorrowedMapSlots /
	// ReduceSlots when absent (Appendix F).
	DefaultBorrow = 1.0
	// DefaultTau1 and DefaultTau2 are FRESH's switching thresholds, as
	// measured in the dissertation's section 3.4.1.
	DefaultTau1 = 0.8
	DefaultTau2 = 0.6
	// DefaultEMAAlpha is OMO's smoothing factor when omo.ema_alpha is 0.
	DefaultEMAAlpha = 0.3
)

// The ratio modes of docs/algorithms.md section 7, as the wire names them.
const (
	ModeStatic = "static"
	ModePIDHSA = "pi_dhsa"
	ModePDDHSA = "pd_dhsa"
	ModeFresh  = "fresh"
)

// Request is one epoch's input: the cluster's slots and the state of its
// jobs at the start of the epoch. Times are seconds on the caller's clock,
// work is slot-seconds.
type Request struct {
	// Epoch numbers the call; it increases per cluster (the store guards
	// the order, not Decide).
	Epoch int64
	// Now is the start of the epoch; EpochLength its expected length (>= 0;
	// read by OMO).
	Now, EpochLength float64
	// Objective is the cluster-wide metric; empty means
	// penalty.AvgResponseTime. A job's own Objective overrides it.
	Objective penalty.Metric
	// Policy is the allocation policy of both phases (solver.ByName);
	// empty means DefaultPolicy.
	Policy string
	// PhasePolicy overrides Policy per phase (wire: phase_policy, an
	// addition to docs/api.md).
	PhasePolicy PhasePolicy
	// FairVariant selects Hadoop's fair-share computation for "fair":
	// "mrv1" (default, when empty) or "yarn" (docs/fair-share.md).
	FairVariant string
	// Slots are the cluster's map and reduce slots; with the static ratio
	// mode they are the phase budgets.
	Slots Slots
	// Ratio chooses how slots are split between phases (and pools).
	Ratio Ratio
	// OMO switches the dissertation's chapter 4 decisions on.
	OMO OMO
	// Estimate says how each phase's remaining work is obtained: given by
	// the shim (the zero value) or estimated from task statistics.
	Estimate Estimate
	// Effort is FLEX's search effort in both phases (the API's effort:
	// nil the default, 0 the fastest, n times the default search).
	Effort *int
	// ReleasedSlots counts the slots released since the previous epoch
	// (>= 0), the sample OMO's release-rate average takes.
	ReleasedSlots int
	// Jobs are the cluster's live jobs, in the caller's order, which the
	// decision's allocations keep.
	Jobs []Job
	// Speculation chooses the straggler detector whose advice the decision
	// carries (nil: none). Advice never changes an allocation.
	Speculation *Speculation
	// Explain asks for the detector's per-attempt detail.
	Explain bool
	// Nodes, Tasks, CompletedTasks and FinishedJobs are the task-level
	// state the detectors read (estimate-and-advice.md section 2): the
	// worker nodes, the running and waiting attempts, the attempts that
	// succeeded since the previous epoch and the jobs that completed
	// since then.
	Nodes          []Node
	Tasks          []TaskAttempt
	CompletedTasks []CompletedTask
	FinishedJobs   []string
	// Preschedule switches Slot PreScheduling's advice on.
	Preschedule Preschedule
}

// Preschedule is the request's preschedule object.
type Preschedule struct {
	Enabled bool
	// MaxBorrowedReduceSlots is nil for the default (100000).
	MaxBorrowedReduceSlots *int
}

// PhasePolicy names a policy per phase; an empty name means the request's
// Policy.
type PhasePolicy struct {
	Map, Reduce string
}

// Slots counts slots per phase.
type Slots struct {
	Map, Reduce int
}

// Ratio configures the ratio stage (docs/algorithms.md section 7). Nil
// pointers mean the Default* constants; the wire layer maps JSON null and
// absence onto nil.
type Ratio struct {
	// Mode is one of the Mode* constants; empty means ModeStatic.
	Mode string
	// BorrowMap and BorrowReduce are DynamicMR's borrowing percentages, in
	// [0, 1].
	BorrowMap, BorrowReduce *float64
	// Tau1 and Tau2 are FRESH's thresholds, in (0, 1].
	Tau1, Tau2 *float64
	// ReduceSlotWeight is what one reduce slot costs in map slots when
	// DHSA moves slots between phases (DynamicMR's challenge C2; > 0); 0
	// means 1, the plain DynamicMR. Zero cannot mean "free", so no pointer.
	ReduceSlotWeight float64
	// Pools declares PD-DHSA's pools and their weights. Empty means every
	// pool a job names exists with weight 1; otherwise every job's pool
	// (the default pool for a job naming none) must be declared.
	Pools []Pool
}

// Pool declares one PD-DHSA pool.
type Pool struct {
	// Name is the pool's id, unique and non-empty; jobs refer to it.
	Name string
	// Weight is the pool's weight in the max-min sharing of each phase
	// (>= 0, finite); 0 means 1.
	Weight float64
}

// Borrow returns the borrowing percentages with defaults applied.
func (r Ratio) Borrow() (mapPct, reducePct float64) {
	return valueOr(r.BorrowMap, DefaultBorrow), valueOr(r.BorrowReduce, DefaultBorrow)
}

// Taus returns FRESH's thresholds with defaults applied.
func (r Ratio) Taus() (tau1, tau2 float64) {
	return valueOr(r.Tau1, DefaultTau1), valueOr(r.Tau2, DefaultTau2)
}

// OMO configures the dissertation's chapter 4 decisions.
type OMO struct {
	// LazyStart lets OMO decide when each job's reduce phase starts;
	// BatchFinish lets it pick one job whose map tail finishes in a batch.
	LazyStart, BatchFinish bool
	// Bandwidth is the shuffle bandwidth in bytes per second (>= 0).
	Bandwidth float64
	// EMAAlpha is the moving averages' smoothing factor in [0, 1]; 0 means
	// DefaultEMAAlpha (an alpha of 0 would never learn anything).
	EMAAlpha float64
}

// Enabled reports whether any OMO decision is switched on; only then does
// Decide fold the epoch into the cluster's OMO state.
func (o OMO) Enabled() bool { return o.LazyStart || o.BatchFinish }

// Job is one live job.
type Job struct {
	// ID identifies the job; unique and non-empty within a request.
	ID string
	// Pool is the job's pool for per-pool budgets (PD-DHSA); empty means
	// the default pool.
	Pool string
	// Submitted is the job's arrival time.
	Submitted float64
	// Weight is the job's weight (>= 0, finite); nil means 1.
	Weight *float64
	// Deadline is the job's deadline, meaningful only when HasDeadline.
	Deadline    float64
	HasDeadline bool
	// SLA lists SLA steps: deadlines strictly increasing, penalties
	// non-decreasing.
	SLA []penalty.Step
	// Objective overrides the request's metric for this job; empty means
	// the request's.
	Objective penalty.Metric
	// ConsumedSlotSeconds is the work the job's tasks have done so far,
	// finished and running (slot-seconds, >= 0); nil when the caller does
	// not track it. It feeds the overall-fairness index (FRESH Eq. 3.1).
	ConsumedSlotSeconds *float64
	// Map and Reduce describe the job's phases; nil means the job has
	// nothing to do in that phase (finished, or not started).
	Map, Reduce *Phase
}

// Phase is one job's state in one phase.
type Phase struct {
	// Min and Max bound the job's slots in the phase (0 <= Min, 1 <= Max
	// when the phase has work). Min > Max is not an error: the solver
	// clamps Min to Max (docs/algorithms.md section 1).
	Min, Max int
	// Work is the phase's remaining work (>= 0, finite); 0 means nothing to
	// do in this phase, and the job takes no part in its problem, or, with
	// an estimating Request.Estimate and tasks left, estimated from the
	// task statistics.
	Work float64
	// TotalWork is the phase's whole work, for stretch (>= 0); 0 means Work.
	TotalWork float64
	// Pending, Running and Tasks count the phase's tasks (>= 0). Pending +
	// Running, when positive, is the job's remaining demand in slots: the
	// solver clamps Max to it.
	Pending, Running, Tasks int
	// AvgTaskTime is the mean task duration (seconds) and
	// OutputBytesPerTask the mean map output (bytes); both >= 0, read by
	// the estimators and OMO.
	AvgTaskTime, OutputBytesPerTask float64
	// Started is true once the phase has begun (OMO holds a reduce phase's
	// demand at 0 until it starts).
	Started bool
	// RunningElapsed is the sum over the running tasks of the time each has
	// run, seconds (>= 0); read by the extrapolate_elapsed estimate only.
	RunningElapsed float64
	// LocalPending counts, per node id, the pending tasks with an input
	// replica there (map phase; read by Slot PreScheduling only).
	LocalPending map[string]int
}

// Decision is what Decide answers for one epoch.
type Decision struct {
	// Epoch echoes the request's epoch.
	Epoch int64
	// Budgets are the slots each phase's policy shared out.
	Budgets Budgets
	// Phases hold each phase's solver answer, jobs in the order of that
	// phase's problem (see Normalize) less the jobs whose reduce phase OMO
	// holds, never nil. In pd_dhsa each (pool, phase) is solved on its own
	// budget and Phases is the merged view (see PoolPhases).
	Phases Phases
	// PoolPhases holds each pool's own phase answers, by pool name, in
	// pd_dhsa; nil in the other modes. A pool's results list its jobs in
	// request order; the merged Phases list every job of the phase in
	// request order, sum (or, for max aggregates, take the maximum of) the
	// pools' objective values, and merge their plans interval by interval.
	// When some pool's phase had jobs but a budget of 0, nothing plans
	// those jobs, so the merged plan is left empty; the other pools' plans
	// are here.
	PoolPhases map[string]Phases
	// OMO holds OMO's decisions; nil when OMO is off.
	OMO *OMODecision
	// Allocations are every job's slots now, in request order.
	Allocations []JobAllocation
	// Fairness is Jain's index over the jobs' resource rates (FRESH Eq.
	// 3.1), nil when the request carries no consumed slot-seconds.
	Fairness *float64
	// Why explains the ratio stage's decision step by step, for people
	// (ratio.Result.Why); its wording is not an API.
	Why []string
	// Estimates lists the jobs whose work was estimated, in request order;
	// nil when nothing was (and then absent from the JSON form, which the
	// golden tests compare: a request without an estimate object decides
	// exactly as before it existed).
	Estimates []JobEstimate `json:",omitempty"`
	// Speculation is the straggler detector's advice; nil without a
	// detector (and then absent from the JSON form, as Estimates).
	Speculation *estimate.Advice `json:",omitempty"`
	// Preschedule is Slot PreScheduling's advice; nil when it is off.
	Preschedule *estimate.Preschedule `json:",omitempty"`
}

// Budgets are the ratio stage's output.
type Budgets struct {
	// Mode is the ratio mode that produced them.
	Mode string
	// Map and Reduce are the phase budgets in slots.
	Map, Reduce int
	// Borrowed says how many slots one phase lent the other.
	Borrowed Borrowed
	// Pools holds per-pool budgets (PD-DHSA); nil in the other modes.
	Pools map[string]PoolBudget
	// Theta is FRESH's map share of all slots, theta, behind the split; 0
	// in the other modes.
	Theta float64
}

// Borrowed counts slots lent between phases.
type Borrowed struct {
	ReduceToMap, MapToReduce int
}

// PoolBudget is one pool's budget per phase.
type PoolBudget struct {
	Map, Reduce int
}

// Phases hold the solver's answer per phase.
type Phases struct {
	Map, Reduce *solver.Result
}

// OMODecision is OMO's output for one epoch (docs/algorithms.md section 7).
type OMODecision struct {
	// StartReduce lists the jobs whose reduce phase starts now (lazy
	// start), best candidate first as OMO ranks them (fewest occupied
	// slots, then earlier submission, then id).
	StartReduce []string
	// BatchFinish is the job whose map tail finishes in a batch, or "".
	BatchFinish string
	// ReleaseRate (slots per second) and AvailableSlots are the moving
	// averages after this epoch's sample.
	ReleaseRate, AvailableSlots float64
}

// Reasons Decide adds to solver's, so that every allocation has one
// (wire: map_reason / reduce_reason).
const (
	// ReasonNone is the reason of a job's zero slots in a phase it takes
	// no part in (no work there).
	ReasonNone solver.Reason = "none"
	// ReasonHeld is the reason of a job's zero reduce slots while OMO's
	// lazy start holds its reduce phase (it has work there, but starting
	// now would only park reduce tasks waiting for map output).
	ReasonHeld solver.Reason = "held"
	// ReasonNoBudget is the reason of a job's zero slots in a phase (or, in
	// pd_dhsa, its pool's phase) whose budget this epoch is 0 slots: no
	// policy can run on zero slots.
	ReasonNoBudget solver.Reason = "no_budget"
)

// JobAllocation is one job's slots now in each phase.
type JobAllocation struct {
	ID                      string
	Map, Reduce             int
	MapReason, ReduceReason solver.Reason
}

// ClusterState is what a cluster carries from one epoch to the next; the
// store saves it beside the decision, so its JSON form is a stored format:
// add fields, never rename them.
type ClusterState struct {
	// LastEpoch is the epoch the state belongs to.
	LastEpoch int64 `json:"last_epoch"`
	// OMO holds OMO's moving averages; nil until OMO first runs. Epochs
	// with OMO off carry it unchanged, so switching OMO back on resumes
	// from what it had learnt.
	OMO *OMOState `json:"omo,omitempty"`
	// Estimate holds what the straggler detectors learnt (ESAMR's weight
	// history, ESPLASH's statistics and samples); nil until a detector
	// first runs, carried unchanged through epochs without one.
	Estimate *estimate.State `json:"estimate,omitempty"`
}

// OMOState holds OMO's exponential moving averages (dissertation Eq. 4.1):
// package ratio owns them, and this alias keeps the stored JSON form
// ("release_rate", "available_slots", "windows") in one place.
type OMOState = ratio.State

func valueOr(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}
