package epoch

import (
	"github.com/flexd/flexd/ratio"
)

// RatioConfig is the request's ratio and OMO settings as package ratio
// takes them. Absent borrowing percentages become DefaultBorrow (ratio
// reads 0 as "no borrowing", so nil cannot pass through as 0); absent
// thresholds and the zero weights and alpha stay 0, which ratio reads as
// its defaults (the same values as this package's Default* constants).
func RatioConfig(req Request) ratio.Config {
	bm, br := req.Ratio.Borrow()
	cfg := ratio.Config{
		Mode:             ratio.Mode(req.Ratio.Mode),
		BorrowMap:        bm,
		BorrowReduce:     br,
		ReduceSlotWeight: req.Ratio.ReduceSlotWeight,
		Tau1:             valueOr(req.Ratio.Tau1, 0),
		Tau2:             valueOr(req.Ratio.Tau2, 0),
		OMO: ratio.OMOConfig{
			LazyStart:   req.OMO.LazyStart,
			BatchFinish: req.OMO.BatchFinish,
			Bandwidth:   req.OMO.Bandwidth,
			Alpha:       req.OMO.EMAAlpha,
		},
	}
	if cfg.Mode == "" {
		cfg.Mode = ratio.ModeStatic
	}
	for _, p := range req.Ratio.Pools {
		cfg.Pools = append(cfg.Pools, ratio.Pool{Name: p.Name, Weight: p.Weight})
	}
	return cfg
}

// RatioInput is the request's epoch as package ratio sees it: the
// configured slots, the release sample, and per job each phase's demand,
// work and statistics, with the job's pool, its map output per task and
// whether its reduce phase has started.
//
// A phase takes part in ratio's view exactly when it takes part in the
// phase problems (positive, finite work; see Normalize), so a budget never
// serves a phase nobody can be scheduled in. A taking-part phase without
// task counts (pending + running = 0: the caller does not track them) has
// demand max, capped by its task count when known, because ratio reads
// demand 0 as "nothing to do" and would lend the phase's slots away.
func RatioInput(req Request) ratio.Input {
	in := ratio.Input{
		Cluster:       ratio.Cluster{MapSlots: req.Slots.Map, ReduceSlots: req.Slots.Reduce},
		ReleasedSlots: req.ReleasedSlots,
		EpochLength:   req.EpochLength,
		Jobs:          make([]ratio.Job, len(req.Jobs)),
	}
	for i, j := range req.Jobs {
		rj := ratio.Job{
			ID:        j.ID,
			Pool:      j.Pool,
			Submitted: j.Submitted,
			Map:       phaseDemand(j.Map),
			Reduce:    phaseDemand(j.Reduce),
		}
		if j.Map != nil {
			rj.OutputBytesPerMapTask = j.Map.OutputBytesPerTask
		}
		if j.Reduce != nil {
			rj.ReduceStarted = j.Reduce.Started
		}
		in.Jobs[i] = rj
	}
	return in
}

// maxCount caps the task counts handed to ratio, which adds them up over
// phases, jobs and pools: 2^40 tasks is beyond any cluster, and 2 x 2^40 x
// solver.MaxJobs still fits an int64.
const maxCount = 1 << 40

// phaseDemand is one phase as ratio sees it (see RatioInput).
func phaseDemand(p *Phase) ratio.PhaseDemand {
	if p == nil {
		return ratio.PhaseDemand{}
	}
	d := ratio.PhaseDemand{Tasks: min(p.Tasks, maxCount), AvgTaskTime: p.AvgTaskTime}
	if !participates(p) {
		return d
	}
	d.Pending, d.Running, d.Work = min(p.Pending, maxCount), min(p.Running, maxCount), p.Work
	if max(p.Pending, 0)+max(p.Running, 0) == 0 {
		d.Pending = min(max(p.Max, 1), maxCount)
		if p.Tasks > 0 {
			d.Pending = min(d.Pending, p.Tasks)
		}
	}
	return d
}

// jobPool is the pool a job belongs to, as ratio names it.
func jobPool(j Job) string {
	if j.Pool == "" {
		return ratio.DefaultPool
	}
	return j.Pool
}
