package httpapi

import (
	"time"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// Domain converts the wire request to package epoch's Request: absent
// optional fields become the nil pointers and zero values epoch documents
// as defaults. It does not validate; epoch.Validate does.
func (w *EpochRequest) Domain() epoch.Request {
	req := epoch.Request{
		Epoch:         w.Epoch,
		Now:           w.Now,
		EpochLength:   w.EpochLength,
		Objective:     penalty.Metric(w.Objective),
		Policy:        w.Policy,
		FairVariant:   w.FairVariant,
		Slots:         epoch.Slots{Map: w.Slots.Map, Reduce: w.Slots.Reduce},
		ReleasedSlots: w.ReleasedSlots,
		Effort:        w.Effort,
		Jobs:          make([]epoch.Job, len(w.Jobs)),
	}
	if w.PhasePolicy != nil {
		req.PhasePolicy = epoch.PhasePolicy{Map: w.PhasePolicy.Map, Reduce: w.PhasePolicy.Reduce}
	}
	if w.Ratio != nil {
		// Absent borrowing percentages and thresholds stay nil: epoch
		// applies its defaults (1, 0.8, 0.6) to nil, not to 0.
		req.Ratio = epoch.Ratio{
			Mode: w.Ratio.Mode, BorrowMap: w.Ratio.BorrowMap, BorrowReduce: w.Ratio.BorrowReduce,
			Tau1: w.Ratio.Tau1, Tau2: w.Ratio.Tau2,
			ReduceSlotWeight: w.Ratio.ReduceSlotWeight,
		}
		if len(w.Ratio.Pools) > 0 {
			req.Ratio.Pools = make([]epoch.Pool, len(w.Ratio.Pools))
			for i, p := range w.Ratio.Pools {
				req.Ratio.Pools[i] = epoch.Pool{Name: p.Name, Weight: p.Weight}
			}
		}
	}
	if e := w.Estimate; e != nil {
		req.Estimate = epoch.Estimate{Work: e.Work, DefaultTaskTime: e.DefaultTaskTime, MinOne: e.MinOne}
	}
	if w.OMO != nil {
		req.OMO = epoch.OMO{
			LazyStart: w.OMO.LazyStart, BatchFinish: w.OMO.BatchFinish,
			Bandwidth: w.OMO.Bandwidth, EMAAlpha: w.OMO.EMAAlpha,
		}
	}
	// The jobs' phases share one allocation: two pointers per job into a
	// slab, instead of an allocation per phase.
	phases := make([]epoch.Phase, 0, 2*len(w.Jobs))
	phase := func(p *PhaseState) *epoch.Phase {
		if p == nil {
			return nil
		}
		phases = append(phases, p.domain())
		return &phases[len(phases)-1]
	}
	for i, j := range w.Jobs {
		dj := epoch.Job{
			ID: j.ID, Pool: j.Pool, Submitted: j.Submitted, Weight: j.Weight,
			Objective:           penalty.Metric(j.Objective),
			ConsumedSlotSeconds: j.ConsumedSlotSeconds,
			Map:                 phase(j.Map),
			Reduce:              phase(j.Reduce),
		}
		if j.Deadline != nil {
			dj.Deadline, dj.HasDeadline = *j.Deadline, true
		}
		if len(j.SLA) > 0 {
			dj.SLA = make([]penalty.Step, len(j.SLA))
			for k, s := range j.SLA {
				dj.SLA[k] = penalty.Step{Deadline: s.Deadline, Penalty: s.Penalty}
			}
		}
		req.Jobs[i] = dj
	}
	if w.hasTaskState() {
		w.taskStateDomain(&req)
	}
	return req
}

func (p *PhaseState) domain() epoch.Phase {
	out := epoch.Phase{
		Min: p.Min, Max: p.Max, Work: p.Work, TotalWork: p.TotalWork,
		Pending: p.Pending, Running: p.Running, Tasks: p.Tasks,
		AvgTaskTime: p.AvgTaskTime, OutputBytesPerTask: p.OutputBytesPerTask,
		RunningElapsed: p.RunningElapsed, LocalPending: p.LocalPending,
	}
	if p.Started != nil {
		out.Started = *p.Started
	}
	return out
}

// SolveTimes are the wall times of an epoch's policy calls, reported as
// each phase's solve_micros.
type SolveTimes struct {
	// Map and Reduce are the phases' times; in pd_dhsa, the sums of the
	// pools' times.
	Map, Reduce time.Duration
	// Pools holds each pool's phase times (pd_dhsa), by pool name.
	Pools map[string]PoolTimes
}

// PoolTimes are one pd_dhsa pool's phase times.
type PoolTimes struct {
	Map, Reduce time.Duration
}

// NewEpochResponse converts a decision to the wire form with the solve
// times measured while deciding it, plans delta-encoded (what is stored and
// answered by default: a dense plan of J jobs lists O(J^2) entries, most of
// an epoch's bytes and encoding time). The decision id is the caller's.
func NewEpochResponse(cluster string, dec epoch.Decision, times SolveTimes) *EpochResponse {
	resp := newEpochResponse(cluster, dec, times)
	resp.eachPhase(func(ph *SolveResponse) { ph.Plan = ph.Plan.Materialized() })
	return resp
}

// eachPhase calls f with each phase answer of r, the pools' too.
func (r *EpochResponse) eachPhase(f func(*SolveResponse)) {
	f(&r.Phases.Map)
	f(&r.Phases.Reduce)
	for name, ph := range r.PoolPhases {
		f(&ph.Map)
		f(&ph.Reduce)
		r.PoolPhases[name] = ph
	}
}

// newEpochResponse is NewEpochResponse with the plans left to be written
// when the answer is encoded (Plan.src): the server's path, which runs for
// every epoch, builds no map per interval.
func newEpochResponse(cluster string, dec epoch.Decision, times SolveTimes) *EpochResponse {
	resp := &EpochResponse{
		Cluster: cluster,
		Epoch:   dec.Epoch,
		Budgets: Budgets{
			Mode: dec.Budgets.Mode, Map: dec.Budgets.Map, Reduce: dec.Budgets.Reduce,
			Borrowed: Borrowed{ReduceToMap: dec.Budgets.Borrowed.ReduceToMap, MapToReduce: dec.Budgets.Borrowed.MapToReduce},
			Pools:    make(map[string]PhaseSlots, len(dec.Budgets.Pools)),
			Theta:    dec.Budgets.Theta,
		},
		Phases:      epochPhases(dec.Phases, times.Map, times.Reduce),
		Allocations: make([]EpochAllocation, len(dec.Allocations)),
		Fairness:    dec.Fairness,
		// Always a list, so a client can print it without a nil check.
		Why: append([]string{}, dec.Why...),
	}
	for name, pb := range dec.Budgets.Pools {
		resp.Budgets.Pools[name] = PhaseSlots{Map: pb.Map, Reduce: pb.Reduce}
	}
	if dec.PoolPhases != nil {
		resp.PoolPhases = make(map[string]EpochPhases, len(dec.PoolPhases))
		for name, ph := range dec.PoolPhases {
			pt := times.Pools[name]
			resp.PoolPhases[name] = epochPhases(ph, pt.Map, pt.Reduce)
		}
	}
	if o := dec.OMO; o != nil {
		resp.OMO = &OMODecision{
			StartReduce: append([]string{}, o.StartReduce...), BatchFinish: o.BatchFinish,
			ReleaseRate: o.ReleaseRate, AvailableSlots: o.AvailableSlots,
		}
	}
	for _, e := range dec.Estimates {
		resp.Estimates = append(resp.Estimates, EpochEstimate{ID: e.ID, Map: phaseEstimate(e.Map), Reduce: phaseEstimate(e.Reduce)})
	}
	resp.Speculation = dec.Speculation
	resp.Preschedule = dec.Preschedule
	for i, a := range dec.Allocations {
		resp.Allocations[i] = EpochAllocation{
			ID: a.ID, Map: a.Map, Reduce: a.Reduce,
			MapReason: string(a.MapReason), ReduceReason: string(a.ReduceReason),
		}
	}
	return resp
}

func epochPhases(ph epoch.Phases, mapTime, reduceTime time.Duration) EpochPhases {
	return EpochPhases{
		Map:    phaseResponse(ph.Map, mapTime),
		Reduce: phaseResponse(ph.Reduce, reduceTime),
	}
}

// phaseResponse converts one phase's result; epoch promises non-nil, but a
// nil one still yields a well-formed empty phase.
func phaseResponse(res *solver.Result, elapsed time.Duration) SolveResponse {
	if res == nil {
		res = &solver.Result{}
	}
	return newSolveResponseLazy(*res, false, elapsed, planDelta)
}

// withPlans returns a copy of r with every phase's plan in encoding enc,
// for ?plan=dense and ?plan=none. Only the plans are copied; the rest is
// shared with r.
func (r EpochResponse) withPlans(enc string) *EpochResponse {
	r.Phases.Map.Plan = r.Phases.Map.Plan.reencode(enc)
	r.Phases.Reduce.Plan = r.Phases.Reduce.Plan.reencode(enc)
	if r.PoolPhases != nil {
		pools := make(map[string]EpochPhases, len(r.PoolPhases))
		for name, ph := range r.PoolPhases {
			ph.Map.Plan = ph.Map.Plan.reencode(enc)
			ph.Reduce.Plan = ph.Reduce.Plan.reencode(enc)
			pools[name] = ph
		}
		r.PoolPhases = pools
	}
	return &r
}

func phaseEstimate(w *estimate.Work) *PhaseEstimate {
	if w == nil {
		return nil
	}
	return &PhaseEstimate{Work: w.Work, Source: string(w.Source), TaskTime: w.TaskTime, TasksLeft: w.TasksLeft, MinRaised: w.MinRaised}
}
