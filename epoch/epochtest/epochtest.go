// Package epochtest builds epoch requests for tests with fluent builders, in
// the manner of kueue's wrappers: start from a valid value, change only what
// the test is about, and Build a fresh copy.
//
//	req := epochtest.Request(42).Slots(100, 50).Jobs(
//		epochtest.Job("j1").Map(1, 8, 3600).Reduce(0, 4, 600).Build(),
//	).Build()
//
// Builders mutate and return themselves; Build deep-copies, so a builder can
// be changed and built again without touching what it built before.
package epochtest

import (
	"slices"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/penalty"
)

// JobBuilder builds an epoch.Job.
type JobBuilder struct{ j epoch.Job }

// Job starts a job with the given id, submitted at 0, weight absent (1),
// no deadline and no phases.
func Job(id string) *JobBuilder { return &JobBuilder{epoch.Job{ID: id}} }

// Pool sets the job's pool.
func (b *JobBuilder) Pool(pool string) *JobBuilder { b.j.Pool = pool; return b }

// Submitted sets the job's arrival time.
func (b *JobBuilder) Submitted(t float64) *JobBuilder { b.j.Submitted = t; return b }

// Weight sets the job's weight (absent until called).
func (b *JobBuilder) Weight(w float64) *JobBuilder { b.j.Weight = &w; return b }

// Deadline gives the job a deadline.
func (b *JobBuilder) Deadline(d float64) *JobBuilder {
	b.j.Deadline, b.j.HasDeadline = d, true
	return b
}

// SLA appends an SLA step.
func (b *JobBuilder) SLA(deadline, pen float64) *JobBuilder {
	b.j.SLA = append(b.j.SLA, penalty.Step{Deadline: deadline, Penalty: pen})
	return b
}

// Objective overrides the request's metric for the job.
func (b *JobBuilder) Objective(m penalty.Metric) *JobBuilder { b.j.Objective = m; return b }

// Consumed sets the slot-seconds the job has consumed so far.
func (b *JobBuilder) Consumed(slotSeconds float64) *JobBuilder {
	b.j.ConsumedSlotSeconds = &slotSeconds
	return b
}

// Map gives the job a map phase with the given bounds and remaining work
// (keeping the phase's other fields when it already has one).
func (b *JobBuilder) Map(min, max int, work float64) *JobBuilder {
	b.j.Map = withBounds(b.j.Map, min, max, work)
	return b
}

// Reduce gives the job a reduce phase with the given bounds and remaining
// work (keeping the phase's other fields when it already has one).
func (b *JobBuilder) Reduce(min, max int, work float64) *JobBuilder {
	b.j.Reduce = withBounds(b.j.Reduce, min, max, work)
	return b
}

// MapPhase edits the job's map phase (creating an empty one first when
// absent), for the fields without a builder method of their own.
func (b *JobBuilder) MapPhase(edit func(*epoch.Phase)) *JobBuilder {
	if b.j.Map == nil {
		b.j.Map = &epoch.Phase{}
	}
	edit(b.j.Map)
	return b
}

// ReducePhase edits the job's reduce phase like MapPhase.
func (b *JobBuilder) ReducePhase(edit func(*epoch.Phase)) *JobBuilder {
	if b.j.Reduce == nil {
		b.j.Reduce = &epoch.Phase{}
	}
	edit(b.j.Reduce)
	return b
}

// MapTasks sets the map phase's pending and running task counts (its
// demand).
func (b *JobBuilder) MapTasks(pending, running int) *JobBuilder {
	return b.MapPhase(func(p *epoch.Phase) { p.Pending, p.Running = pending, running })
}

// ReduceTasks sets the reduce phase's pending and running task counts.
func (b *JobBuilder) ReduceTasks(pending, running int) *JobBuilder {
	return b.ReducePhase(func(p *epoch.Phase) { p.Pending, p.Running = pending, running })
}

// Tasks sets the map and reduce phases' total task counts (creating empty
// phases when absent), which OMO's estimates read.
func (b *JobBuilder) Tasks(mapTasks, reduceTasks int) *JobBuilder {
	b.MapPhase(func(p *epoch.Phase) { p.Tasks = mapTasks })
	return b.ReducePhase(func(p *epoch.Phase) { p.Tasks = reduceTasks })
}

// MapStats sets the map phase's mean task time (seconds) and mean output
// per task (bytes), which OMO's estimates read.
func (b *JobBuilder) MapStats(avgTaskTime, outputBytesPerTask float64) *JobBuilder {
	return b.MapPhase(func(p *epoch.Phase) { p.AvgTaskTime, p.OutputBytesPerTask = avgTaskTime, outputBytesPerTask })
}

// ReduceStarted marks the job's reduce phase as begun (creating an empty
// one when absent).
func (b *JobBuilder) ReduceStarted() *JobBuilder {
	return b.ReducePhase(func(p *epoch.Phase) { p.Started = true })
}

// Build returns a deep copy of the job.
func (b *JobBuilder) Build() epoch.Job {
	j := b.j
	j.SLA = slices.Clone(j.SLA)
	j.Weight = clonePtr(j.Weight)
	j.ConsumedSlotSeconds = clonePtr(j.ConsumedSlotSeconds)
	j.Map = clonePtr(j.Map)
	j.Reduce = clonePtr(j.Reduce)
	return j
}

// RequestBuilder builds an epoch.Request.
type RequestBuilder struct{ r epoch.Request }

// Request starts a valid request for the given epoch: now 0, 10 map and 10
// reduce slots, default policy, objective and ratio, OMO off, no jobs.
func Request(epochNumber int64) *RequestBuilder {
	return &RequestBuilder{epoch.Request{Epoch: epochNumber, Slots: epoch.Slots{Map: 10, Reduce: 10}}}
}

// Now sets the start of the epoch.
func (b *RequestBuilder) Now(t float64) *RequestBuilder { b.r.Now = t; return b }

// EpochLength sets the epoch's length.
func (b *RequestBuilder) EpochLength(s float64) *RequestBuilder { b.r.EpochLength = s; return b }

// Slots sets the map and reduce slots.
func (b *RequestBuilder) Slots(mapSlots, reduceSlots int) *RequestBuilder {
	b.r.Slots = epoch.Slots{Map: mapSlots, Reduce: reduceSlots}
	return b
}

// Objective sets the cluster-wide metric.
func (b *RequestBuilder) Objective(m penalty.Metric) *RequestBuilder { b.r.Objective = m; return b }

// Policy sets both phases' policy.
func (b *RequestBuilder) Policy(name string) *RequestBuilder { b.r.Policy = name; return b }

// PhasePolicy overrides the policy per phase ("" keeps Policy).
func (b *RequestBuilder) PhasePolicy(mapPolicy, reducePolicy string) *RequestBuilder {
	b.r.PhasePolicy = epoch.PhasePolicy{Map: mapPolicy, Reduce: reducePolicy}
	return b
}

// FairVariant sets the fair-share variant.
func (b *RequestBuilder) FairVariant(v string) *RequestBuilder { b.r.FairVariant = v; return b }

// Ratio sets the ratio stage's configuration.
func (b *RequestBuilder) Ratio(r epoch.Ratio) *RequestBuilder { b.r.Ratio = r; return b }

// RatioMode sets only the ratio mode.
func (b *RequestBuilder) RatioMode(mode string) *RequestBuilder { b.r.Ratio.Mode = mode; return b }

// Borrow sets DynamicMR's borrowing percentages.
func (b *RequestBuilder) Borrow(mapPct, reducePct float64) *RequestBuilder {
	b.r.Ratio.BorrowMap, b.r.Ratio.BorrowReduce = &mapPct, &reducePct
	return b
}

// Taus sets FRESH's thresholds.
func (b *RequestBuilder) Taus(tau1, tau2 float64) *RequestBuilder {
	b.r.Ratio.Tau1, b.r.Ratio.Tau2 = &tau1, &tau2
	return b
}

// ReduceSlotWeight sets the cost of a reduce slot in map slots (DHSA).
func (b *RequestBuilder) ReduceSlotWeight(w float64) *RequestBuilder {
	b.r.Ratio.ReduceSlotWeight = w
	return b
}

// Pool declares a PD-DHSA pool with its weight.
func (b *RequestBuilder) Pool(name string, weight float64) *RequestBuilder {
	b.r.Ratio.Pools = append(b.r.Ratio.Pools, epoch.Pool{Name: name, Weight: weight})
	return b
}

// OMO sets OMO's configuration.
func (b *RequestBuilder) OMO(o epoch.OMO) *RequestBuilder { b.r.OMO = o; return b }

// ReleasedSlots sets the slots released since the previous epoch.
func (b *RequestBuilder) ReleasedSlots(n int) *RequestBuilder { b.r.ReleasedSlots = n; return b }

// Jobs appends jobs.
func (b *RequestBuilder) Jobs(jobs ...epoch.Job) *RequestBuilder {
	b.r.Jobs = append(b.r.Jobs, jobs...)
	return b
}

// Build returns a deep copy of the request.
func (b *RequestBuilder) Build() epoch.Request {
	r := b.r
	r.Ratio.BorrowMap = clonePtr(r.Ratio.BorrowMap)
	r.Ratio.BorrowReduce = clonePtr(r.Ratio.BorrowReduce)
	r.Ratio.Tau1 = clonePtr(r.Ratio.Tau1)
	r.Ratio.Tau2 = clonePtr(r.Ratio.Tau2)
	r.Ratio.Pools = slices.Clone(r.Ratio.Pools)
	r.Jobs = nil
	for _, j := range b.r.Jobs {
		r.Jobs = append(r.Jobs, (&JobBuilder{j}).Build())
	}
	return r
}

// Float returns a pointer to x, for the optional fields.
func Float(x float64) *float64 { return &x }

func withBounds(p *epoch.Phase, min, max int, work float64) *epoch.Phase {
	if p == nil {
		p = &epoch.Phase{}
	}
	p.Min, p.Max, p.Work = min, max, work
	return p
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
