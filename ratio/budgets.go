package ratio

import (
	"fmt"
	"math"
	"strings"
)

// Budgets decides one epoch's phase budgets (docs/algorithms.md section 7)
// and returns them with the cluster's next State.
//
// Order of work: OMO's averages take in the epoch (Eq. 4.1; always, so
// they are warm when OMO is switched on); with lazy start on, jobs whose
// reduce phase should not start yet have their reduce demand held at 0
// (Alg. 4.3.1, corrected) before any budget is computed, so their would-be
// reduce slots serve map tasks; the mode then splits the slots; finally
// batch finish (Alg. 4.3.2) raises one job's map minimum to all its
// remaining map tasks (pending plus running), within its map budget. Lazy
// start wins a conflict (Alg. 4.3.3): its jobs are never batch candidates
// in the same epoch, and their reduce demand is counted before any minimum
// is raised.
//
// Budgets never panics. Call Validate first: on input it rejects, the answer
// is best effort (negative counts are read as 0, bad settings as defaults).
func Budgets(cfg Config, in Input, prev State) (Result, State) {
	cfg = sanitizeConfig(cfg)
	in = sanitizeInput(in)
	res := Result{Mode: cfg.Mode}
	say := func(f string, a ...any) { res.Why = append(res.Why, fmt.Sprintf(f, a...)) }
	next := Observe(prev, cfg.OMO.Alpha, in)
	omoOn := cfg.OMO.Enabled() && cfg.Mode != ModeStatic
	if cfg.OMO.Enabled() && !omoOn {
		say("omo: ignored on a static split (it needs fungible slots)")
	}

	// OMO lazy start: who starts now, who is held.
	redDemand := make([]int, len(in.Jobs))
	redWork := make([]float64, len(in.Jobs))
	for i, j := range in.Jobs {
		redDemand[i], redWork[i] = j.Reduce.Demand(), j.Reduce.Work
	}
	starting := map[int]bool{}
	held := map[int]bool{}
	if omoOn {
		res.OMO = &OMODecision{ReleaseRate: next.ReleaseRate, AvailableSlots: next.AvailableSlots}
		say("omo: F_o=%.4g slots/s, A_o=%.4g available slots after %d windows (Eq. 4.1)", next.ReleaseRate, next.AvailableSlots, next.Windows)
	}
	if omoOn && cfg.OMO.LazyStart {
		k := activeJobs(in.Jobs)
		for _, i := range lazyStart(in.Jobs, next, cfg.OMO.Bandwidth) {
			starting[i] = true
			res.OMO.StartReduce = append(res.OMO.StartReduce, in.Jobs[i].ID)
		}
		for i, j := range in.Jobs {
			if j.reduceStarted() || j.Reduce.Demand() == 0 {
				continue
			}
			gap := LazyStartGap(j, next, k, cfg.OMO.Bandwidth)
			if starting[i] {
				if j.mapDone() {
					say("omo: job %s starts its reduce phase: its map phase is over", j.ID)
				} else {
					say("omo: job %s starts its reduce phase: shuffle-to-map-end gap alpha=%.4g >= 0 (Eq. 4.3)", j.ID, gap)
				}
				continue
			}
			held[i] = true
			redDemand[i], redWork[i] = 0, 0
			say("omo: job %s holds its reduce phase: alpha=%.4g < 0 with %d pending map tasks (Eq. 4.3)", j.ID, gap, j.Map.Pending)
		}
	}

	dMap, dRed := 0, 0
	for i, j := range in.Jobs {
		dMap += j.Map.Demand()
		dRed += redDemand[i]
	}
	var poolMap map[string]int
	switch cfg.Mode {
	case ModePIDHSA:
		res.Map, res.Reduce, res.Borrowed = piDHSA(cfg, in.Cluster, dMap, dRed, &res.Why)
	case ModePDDHSA:
		res.Map, res.Reduce, res.Borrowed, res.Pools = pdDHSA(cfg, in.Cluster, in.Jobs, redDemand, &res.Why)
		poolMap = map[string]int{}
		for _, p := range res.Pools {
			poolMap[p.Pool] = p.Map
		}
	case ModeFresh:
		// RW_r covers R and R' only (3.3.2.2): jobs whose reduce phase has
		// started or whose map phase is over. A job still mapping brings its
		// reduce work in through the look-ahead (Alg. 3.3.3 line 8).
		rw := make([]float64, len(in.Jobs))
		for i, j := range in.Jobs {
			if j.reduceStarted() || j.mapDone() || starting[i] {
				rw[i] = redWork[i]
			}
		}
		res.Map, res.Reduce, res.Theta, res.Borrowed = fresh(cfg, in.Cluster, in.Jobs, rw, redDemand, &res.Why)
	default:
		res.Map, res.Reduce = in.Cluster.MapSlots, in.Cluster.ReduceSlots
		say("static: map %d, reduce %d as configured", res.Map, res.Reduce)
	}

	bf := -1
	if omoOn && cfg.OMO.BatchFinish {
		bf = batchFinish(in.Jobs, next, starting)
		if bf >= 0 {
			j := in.Jobs[bf]
			res.OMO.BatchFinish = j.ID
			say("omo: job %s finishes its %d pending map tasks in a batch: t_fair - t_batch = %.4g > 0 (Eq. 4.4-4.5)",
				j.ID, j.Map.Pending, BatchGain(j, next, activeJobs(in.Jobs)))
		}
	}
	for i, j := range in.Jobs {
		o := Override{ID: j.ID, HoldReduce: held[i]}
		if i == bf {
			budget := res.Map
			if poolMap != nil {
				budget = poolMap[j.pool()]
			}
			// Alg. 4.3.3 gives the batch job's pending map tasks the
			// released slots while its running map tasks keep theirs
			// (4.3.3.2: its map phase then ends m'_i/F_o + T_m later, in
			// one wave). A minimum bounds all the job's map slots, running
			// tasks included, so the batch is its whole map demand: a
			// minimum of only the pending count would leave the job fewer
			// slots than tasks, and none at all beyond its share when
			// running tasks outnumber pending ones.
			o.MapMin = min(j.Map.Demand(), budget)
		}
		if o.HoldReduce || o.MapMin > 0 {
			res.Overrides = append(res.Overrides, o)
		}
	}
	return res, next
}

// sanitizeConfig applies defaults and reads settings Validate rejects as
// their defaults, so Budgets stays total.
func sanitizeConfig(c Config) Config {
	c = c.withDefaults()
	switch c.Mode {
	case ModeStatic, ModePIDHSA, ModePDDHSA, ModeFresh:
	default:
		c.Mode = ModeStatic
	}
	clamp01 := func(v float64) float64 {
		if !finite(v) || v < 0 {
			return 0
		}
		return math.Min(v, 1)
	}
	c.BorrowMap, c.BorrowReduce = clamp01(c.BorrowMap), clamp01(c.BorrowReduce)
	if !finite(c.ReduceSlotWeight) || c.ReduceSlotWeight <= 0 {
		c.ReduceSlotWeight = DefaultReduceSlotWeight
	}
	if !finite(c.Tau1) || c.Tau1 <= 0 || c.Tau1 > 1 {
		c.Tau1 = DefaultTau1
	}
	if !finite(c.Tau2) || c.Tau2 <= 0 || c.Tau2 > 1 {
		c.Tau2 = DefaultTau2
	}
	if !finite(c.OMO.Bandwidth) || c.OMO.Bandwidth < 0 {
		c.OMO.Bandwidth = 0
	}
	if !finite(c.OMO.Alpha) || c.OMO.Alpha <= 0 || c.OMO.Alpha > 1 {
		c.OMO.Alpha = DefaultEMAAlpha
	}
	return c
}

func nonNeg(x float64) float64 {
	if !finite(x) || x < 0 {
		return 0
	}
	return x
}

func sanitizePhase(p PhaseDemand) PhaseDemand {
	return PhaseDemand{
		Pending:     max(p.Pending, 0),
		Running:     max(p.Running, 0),
		Tasks:       max(p.Tasks, 0),
		Work:        nonNeg(p.Work),
		AvgTaskTime: nonNeg(p.AvgTaskTime),
	}
}

// sanitizeInput copies the input with negative counts read as 0 and
// non-finite or negative amounts as 0.
func sanitizeInput(in Input) Input {
	out := Input{
		Cluster:       Cluster{MapSlots: max(in.Cluster.MapSlots, 0), ReduceSlots: max(in.Cluster.ReduceSlots, 0)},
		ReleasedSlots: max(in.ReleasedSlots, 0),
		EpochLength:   nonNeg(in.EpochLength),
		Jobs:          make([]Job, len(in.Jobs)),
	}
	for i, j := range in.Jobs {
		j.Map, j.Reduce = sanitizePhase(j.Map), sanitizePhase(j.Reduce)
		j.OutputBytesPerMapTask = nonNeg(j.OutputBytesPerMapTask)
		if !finite(j.Submitted) {
			j.Submitted = 0
		}
		out.Jobs[i] = j
	}
	return out
}

// String renders a Result's explanation, one step a line.
func (r Result) String() string { return strings.Join(r.Why, "\n") }
