// Package cluster is flexd's closed-loop simulator: a MapReduce cluster in
// continuous time whose slots are re-divided by epoch.Decide, exactly as the
// server decides them for a Hadoop shim, at every epoch boundary and at
// every phase completion. Jobs arrive over time; each runs a map phase and
// a reduce phase; the reduce phase must receive every map task's output
// before it can compute (the map-to-reduce dependency), so it can never
// finish before its map phase. The simulator knows the true remaining work
// and hands it to Decide each epoch, which isolates the policies from
// estimation error; task counts (pending, running) are derived from the
// remaining work and the task size, so the ratio modes (DHSA, FRESH) and
// OMO see the demand they would see in production, and OMO's moving
// averages are carried from epoch to epoch in epoch.ClusterState.
//
// The fluid model (FLEX 2.5: linear speedup up to a job's tasks):
//
//   - a map phase of W_m slot-seconds holding s slots for dt does s*dt;
//   - a reduce phase is a shuffle of ShuffleBytes / Bandwidth slot-seconds
//     (OMO 4.3.2.2: each of its r tasks receives d*m/r bytes at B bytes/s,
//     T_s = d*m/(B*r)) followed by ReduceWork slot-seconds of computing.
//     The shuffle can only receive output the maps have produced: its done
//     share never exceeds the map phase's done share, so reduce slots that
//     have caught up with the maps idle (held but useless: the cost of an
//     early start that Hadoop's slowstart and OMO's lazy start trade off).
//     Computing starts once the map phase and the shuffle are both over;
//   - without OMO's lazy start, a reduce phase is offered to Decide once
//     SlowStart of its map work is done (Hadoop's
//     mapred.reduce.slowstart.completed.maps; dissertation 4.3.2); with it,
//     from the job's arrival, and OMO decides when it starts.
//
// The package is pure and deterministic: no clock, no global randomness;
// workload generators take explicit seeds.
package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/ratio"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/mps"
)

// doneTol is the relative remaining work below which a phase counts as
// finished, absorbing float64 rounding in work accounting.
const doneTol = 1e-9

// timeTol is the shortest interval the simulator steps, seconds: an event
// closer than this counts as reached now. Without it an event 1e-14 s away
// is lost in the rounding of t + dt at large t and the loop stalls.
const timeTol = 1e-6

// maxDecisions bounds one run's Decide calls, so a policy that never
// allocates a slot ends the run with an error instead of looping forever.
const maxDecisions = 5_000_000

// Job is one simulated job.
type Job struct {
	ID string
	// Arrival is the submission time, seconds.
	Arrival float64
	// Weight is the job's weight for weighted metrics (0 means 1).
	Weight float64
	// MapWork > 0 is the map phase's work, slot-seconds, over MapTasks >= 1
	// equal tasks: the phase can use at most its remaining tasks' slots.
	MapWork  float64
	MapTasks int
	// ReduceWork >= 0 is the reduce phase's computing, slot-seconds, after
	// its shuffle. ShuffleBytes >= 0 is the map output the reduce tasks
	// receive (the job's whole intermediate data). A job has a reduce phase
	// when either is positive; it then needs ReduceTasks >= 1.
	ReduceWork   float64
	ShuffleBytes float64
	ReduceTasks  int
	// Min, when positive, is the job's minimum slots in each phase (a
	// FLEX 4.1 instance's minima); 0 means Config.MinShare's even split.
	Min int
	// Pool is the job's PD-DHSA pool; empty means the default pool.
	Pool string
	// Deadline (when HasDeadline) and SLA are the job's deadline and SLA
	// steps, absolute seconds; reported as tardiness and SLA cost.
	Deadline    float64
	HasDeadline bool
	SLA         []penalty.Step
}

func (j Job) hasReduce() bool { return j.ReduceWork > 0 || j.ShuffleBytes > 0 }

// OMOConfig switches OMO's decisions on (dissertation ch. 4); they need a
// ratio mode with fungible slots (not static).
type OMOConfig struct {
	LazyStart, BatchFinish bool
}

// Config is one simulation. Zero values mean defaults where stated.
type Config struct {
	// MapSlots and ReduceSlots are the cluster's configured slots (>= 1);
	// the static ratio mode keeps them, the others move slots between
	// phases (docs/algorithms.md section 7).
	MapSlots, ReduceSlots int
	// Epoch is the time between scheduled decisions, seconds (default 10).
	Epoch float64
	// Policy is the allocation policy of both phases (default "flex").
	Policy string
	// Metric is the policy's objective (default avg_response_time).
	Metric penalty.Metric
	// MinShare is the share of a phase's configured slots guaranteed as
	// minima, split evenly among the jobs in that phase (FAIR's pool
	// minimum, FLEX 4.2; default 0).
	MinShare float64
	// Ratio is the ratio mode: static (default), pi_dhsa, pd_dhsa, fresh.
	Ratio string
	// BorrowMap and BorrowReduce are DHSA's borrowing percentages
	// (DynamicMR Appendix F, Pec_M and Pec_R) in [0, 1]; nil means
	// epoch.DefaultBorrow, full borrowing. Both 0 switch DHSA's lending
	// between phases off (DynamicMR Appendix B, Table 2: "The DHSA can be
	// disabled by simply setting them to zero"): pd_dhsa is then Hadoop's
	// fair scheduler on a static split, pools sharing each phase max-min
	// fairly (see PoolStaticSplits).
	BorrowMap, BorrowReduce *float64
	// OMO switches OMO's lazy start and batch finish on.
	OMO OMOConfig
	// Bandwidth is the shuffle bandwidth of one reduce task, bytes per
	// second (OMO's B); 0 makes the shuffle free (only the map-to-reduce
	// dependency remains). Lazy start needs it positive.
	Bandwidth float64
	// SlowStart is the share of its map work a job must have done before
	// its reduce phase is offered to the policy, in [0, 1]; 0 is taken
	// literally (reduce with the first map), Hadoop's default is 0.05.
	// Ignored under OMO's lazy start, which decides reduce starts itself.
	SlowStart float64
	// Progress, when set, is called with the number of completed jobs
	// after each completion (for a progress bar; it must not block).
	Progress func(done int)
	// Timeline asks for Report.Timeline: every job's slots (map plus
	// reduce) over time, for the schedule chart. Off by default: it costs
	// memory proportional to the decisions.
	Timeline bool
	// Estimate is what the policy is told of the remaining work: Oracle
	// (or empty) the true work; EstimateExtrapolate or
	// EstimateExtrapolateElapsed only what a shim knows, the task counts
	// and the mean duration of the completed tasks, with the epoch's
	// estimate object asking flexd to estimate the work (FLEX 4.2).
	Estimate string
	// TaskTimeCV is the coefficient of variation of task durations when
	// estimating: each job's tasks take i.i.d. lognormal times with the
	// phase's mean (work / tasks) and this CV, and the mean a decision is
	// told is that of the tasks completed so far (0: every task takes the
	// mean). The fluid model itself runs on the true work.
	TaskTimeCV float64
	// EstimateSeed seeds the task durations, one stream per job.
	EstimateSeed uint64
	// EstimateMinOne is the estimate object's min_one (empty: no_sample).
	EstimateMinOne string
	// EstimateOnceSampled, with an estimate, tells the policy a phase's
	// true work until one of its tasks has completed, and only then the
	// statistics: the estimate measured "once every job has one completed
	// task" (D-F7 as section 7.5 of the specification words it), without
	// the start-up, where no estimator has a sample and FLEX 4.2 holds a
	// slot per phase to get one (D-F4).
	EstimateOnceSampled bool
}

// The estimate settings of Config.Estimate.
const (
	Oracle                     = "oracle"
	EstimateExtrapolate        = "extrapolate"
	EstimateExtrapolateElapsed = "extrapolate_elapsed"
)

// Outcome is one job's realised schedule.
type Outcome struct {
	ID         string
	Arrival    float64
	MapDone    float64
	Completion float64
	// Response is Completion - Arrival; Stretch divides it by the job's
	// time alone on the configured slots (map work / min(map tasks, map
	// slots) + reduce work with shuffle / min(reduce tasks, reduce slots)).
	Response, Stretch float64
	// Tardiness is max(0, Completion - Deadline), SLACost the penalty of
	// the last SLA step missed; both 0 without deadlines or steps.
	Tardiness, SLACost float64
	// SlotSeconds is what the job's slots held, including reduce slots
	// waiting for map output; Rate = SlotSeconds / Response is its r_i of
	// FRESH Eq. 3.1 over its lifetime.
	SlotSeconds, Rate float64
}

// Report is a simulation's result.
type Report struct {
	// Jobs are the outcomes in the order of the input jobs.
	Jobs []Outcome
	// Makespan is the last completion, seconds (absolute, like FLEX's
	// makespan metric); MeanResponse and MeanStretch average over jobs,
	// MaxStretch is the worst.
	Makespan, MeanResponse, MeanStretch, MaxStretch float64
	// Deadlines says some job had a deadline or SLA; then TardyJobs,
	// TotalTardiness and SLACost sum the jobs' outcomes.
	Deadlines      bool
	TardyJobs      int
	TotalTardiness float64
	SLACost        float64
	// Fairness is Jain's index over the jobs' lifetime rates (ratio.Jain
	// of the Outcome.Rate values); EpochFairness averages the decisions'
	// overall fairness F(T) (FRESH Eq. 3.1, as epoch.Decide reports it)
	// weighted by the time each decision held, over decisions where it is
	// defined.
	Fairness, EpochFairness float64
	// IdleReduceSlotSeconds is what reduce slots held while waiting for
	// map output: the price of starting a reduce phase early.
	IdleReduceSlotSeconds float64
	// Decisions counts the Decide calls.
	Decisions int
	// Timeline, with Config.Timeline, holds the slots each job held (map
	// plus reduce) over the whole run as a delta-encoded plan indexed like
	// Jobs (completions are the jobs' completion times), the picture of
	// FLEX Fig. 4 for a realised run.
	Timeline *mps.Plan
}

// job is one job's simulation state.
type job struct {
	Job
	idx      int     // index in the input
	shWork   float64 // shuffle work, slot-seconds
	mapRem   float64 // map work left
	shDone   float64 // shuffle work done
	compRem  float64 // reduce computing left
	started  bool    // the reduce phase has begun
	running  [2]int  // slots held after the last decision, per phase
	lastLeft [2]int  // tasks left at the last decision, per phase
	consumed float64 // slot-seconds held
	mapDone  float64 // time the map phase ended, -1 before
	done     float64 // completion time, -1 before
	iso      float64
	// sampled holds, when estimating, per phase the running sums of the
	// tasks' sampled durations: sampled[ph][c] is the sum of the first c.
	sampled [2][]float64
}

// sampleDurations returns the running sums of n task durations drawn from
// rng: lognormal with the given mean and coefficient of variation.
func sampleDurations(rng *rand.Rand, n int, mean, cv float64) []float64 {
	sums := make([]float64, n+1)
	s2 := math.Log1p(cv * cv)
	mu := math.Log(mean) - s2/2
	for k := range n {
		d := mean
		if cv > 0 {
			d = math.Exp(mu + math.Sqrt(s2)*rng.NormFloat64())
		}
		sums[k+1] = sums[k] + d
	}
	return sums
}

// meanOf is the mean of the first c sampled durations of a phase, 0 when
// none has completed.
func meanOf(sums []float64, c int) float64 {
	c = min(c, len(sums)-1)
	if c <= 0 {
		return 0
	}
	return sums[c] / float64(c)
}

func (s *job) mapFrac() float64 { return 1 - s.mapRem/s.MapWork }

func (s *job) reduceRem() float64 { return (s.shWork - s.shDone) + s.compRem }

func (s *job) reduceTotal() float64 { return s.shWork + s.ReduceWork }

// tasksLeft is a phase's unfinished tasks: ceil(tasks * remaining / total)
// whole tasks' worth of work, but never fewer than the running ones (the
// slots held after the last decision): in the fluid model the running
// tasks share the work done, so they all finish together at the end of
// the phase rather than one by one (a phase of 2 reduce tasks half done
// still has 2 tasks to run, not 1).
func tasksLeft(tasks int, rem, total float64, running int) int {
	if rem <= 0 || total <= 0 {
		return 0
	}
	left := max(1, int(math.Ceil(float64(tasks)*rem/total-doneTol)), running)
	return min(tasks, left)
}

// validate checks cfg and applies its defaults.
func (cfg Config) validate() (Config, error) {
	cfg.Epoch = cmp.Or(cfg.Epoch, 10)
	cfg.Policy = cmp.Or(cfg.Policy, epoch.DefaultPolicy)
	cfg.Metric = cmp.Or(cfg.Metric, penalty.AvgResponseTime)
	cfg.Ratio = cmp.Or(cfg.Ratio, epoch.ModeStatic)
	cfg.Estimate = cmp.Or(cfg.Estimate, Oracle)
	switch cfg.Estimate {
	case Oracle, EstimateExtrapolate, EstimateExtrapolateElapsed:
	default:
		return cfg, fmt.Errorf("cluster: estimate %q: want %s, %s or %s", cfg.Estimate, Oracle, EstimateExtrapolate, EstimateExtrapolateElapsed)
	}
	if !(cfg.TaskTimeCV >= 0) || math.IsInf(cfg.TaskTimeCV, 0) {
		return cfg, fmt.Errorf("cluster: task time CV %v: want a finite number >= 0", cfg.TaskTimeCV)
	}
	switch {
	case cfg.MapSlots < 1 || cfg.ReduceSlots < 1:
		return cfg, fmt.Errorf("cluster: %d map and %d reduce slots, want at least 1 each", cfg.MapSlots, cfg.ReduceSlots)
	case !(cfg.Epoch > 0) || math.IsInf(cfg.Epoch, 0):
		return cfg, fmt.Errorf("cluster: epoch %v, want a positive number of seconds", cfg.Epoch)
	case !(cfg.MinShare >= 0 && cfg.MinShare <= 1):
		return cfg, fmt.Errorf("cluster: min share %v, want a share in [0, 1]", cfg.MinShare)
	case !(cfg.SlowStart >= 0 && cfg.SlowStart <= 1):
		return cfg, fmt.Errorf("cluster: slowstart %v, want a share in [0, 1]", cfg.SlowStart)
	case !share(cfg.BorrowMap) || !share(cfg.BorrowReduce):
		return cfg, fmt.Errorf("cluster: borrowing percentages %v and %v, want shares in [0, 1]", deref(cfg.BorrowMap), deref(cfg.BorrowReduce))
	case !(cfg.Bandwidth >= 0) || math.IsInf(cfg.Bandwidth, 0):
		return cfg, fmt.Errorf("cluster: bandwidth %v, want a non-negative number of bytes per second", cfg.Bandwidth)
	case !knownPolicy(cfg.Policy):
		return cfg, fmt.Errorf("cluster: unknown policy %q", cfg.Policy)
	case (cfg.OMO.LazyStart || cfg.OMO.BatchFinish) && cfg.Ratio == epoch.ModeStatic:
		return cfg, errors.New("cluster: OMO needs fungible slots, a ratio mode other than static (docs/algorithms.md section 7)")
	case cfg.OMO.LazyStart && cfg.Bandwidth == 0:
		return cfg, errors.New("cluster: OMO's lazy start needs a positive shuffle bandwidth")
	}
	return cfg, nil
}

// share reports whether an optional borrowing percentage is absent or in
// [0, 1].
func share(p *float64) bool { return p == nil || (*p >= 0 && *p <= 1) }

// deref is an optional percentage for a message: its value, or "default".
func deref(p *float64) any {
	if p == nil {
		return "default"
	}
	return *p
}

func knownPolicy(name string) bool {
	_, ok := solver.ByName(name)
	return ok
}

// Run simulates jobs on the cluster of cfg until every job completes.
func Run(cfg Config, jobs []Job) (Report, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return Report{}, err
	}
	st := make([]*job, len(jobs))
	for i, j := range jobs {
		if !(j.MapWork > 0) || j.MapTasks < 1 || !(j.ReduceWork >= 0) || !(j.ShuffleBytes >= 0) ||
			(j.hasReduce() && j.ReduceTasks < 1) || !(j.Arrival >= 0) || math.IsInf(j.Arrival+j.MapWork+j.ReduceWork+j.ShuffleBytes, 0) {
			return Report{}, fmt.Errorf("cluster: job %q: bad arrival, work or tasks", j.ID)
		}
		s := &job{Job: j, idx: i, mapRem: j.MapWork, compRem: j.ReduceWork, mapDone: -1, done: -1}
		if j.hasReduce() && cfg.Bandwidth > 0 {
			s.shWork = j.ShuffleBytes / cfg.Bandwidth
		}
		s.iso = j.MapWork / float64(min(j.MapTasks, cfg.MapSlots))
		if j.hasReduce() {
			s.iso += s.reduceTotal() / float64(min(j.ReduceTasks, cfg.ReduceSlots))
		}
		s.lastLeft = [2]int{j.MapTasks, tasksLeft(j.ReduceTasks, s.reduceRem(), s.reduceTotal(), 0)}
		if cfg.Estimate != Oracle {
			rng := rand.New(rand.NewPCG(cfg.EstimateSeed, uint64(i)))
			s.sampled[0] = sampleDurations(rng, j.MapTasks, j.MapWork/float64(j.MapTasks), cfg.TaskTimeCV)
			if j.hasReduce() {
				s.sampled[1] = sampleDurations(rng, j.ReduceTasks, s.reduceTotal()/float64(j.ReduceTasks), cfg.TaskTimeCV)
			}
		}
		st[i] = s
	}
	// Requests list jobs in arrival order, as a shim would.
	order := slices.Clone(st)
	slices.SortStableFunc(order, func(a, b *job) int {
		return cmp.Or(cmp.Compare(a.Arrival, b.Arrival), cmp.Compare(a.ID, b.ID))
	})
	sim := &runner{cfg: cfg, jobs: order}
	if cfg.Timeline {
		sim.timeline = &mps.Plan{Completions: make([]float64, len(st)), First: make([]int, len(st))}
		sim.held = make([]int, len(st))
	}
	if err := sim.loop(); err != nil {
		return Report{}, err
	}
	rep := sim.report(st)
	if sim.timeline != nil {
		for i, o := range rep.Jobs {
			sim.timeline.Completions[i] = o.Completion
		}
		rep.Timeline = sim.timeline
	}
	return rep, nil
}

// runner is one run's loop state.
type runner struct {
	cfg       Config
	jobs      []*job // by arrival
	t         float64
	state     epoch.ClusterState
	decisions int
	completed int
	lastDec   float64
	// fairness accumulators: sum of F(T) * held time, and held time.
	fairSum, fairTime float64
	idleReduce        float64
	// timeline records the realised slots when Config.Timeline is set;
	// held is each job's count in its last interval (by input index).
	timeline *mps.Plan
	held     []int
}

func (r *runner) loop() error {
	live := len(r.jobs)
	alloc := make(map[*job][2]int, len(r.jobs))
	for live > 0 {
		if r.decisions >= maxDecisions {
			return fmt.Errorf("cluster: no progress after %d decisions at t=%g", r.decisions, r.t)
		}
		req, in := r.request()
		clear(alloc)
		var fair *float64
		if len(in) > 0 {
			dec, next, err := epoch.Decide(req, r.state)
			if err != nil {
				return fmt.Errorf("cluster: t=%g, epoch %d: %w", r.t, req.Epoch, err)
			}
			r.state, fair = next, dec.Fairness
			r.decisions++
			r.lastDec = r.t
			started := map[string]bool{}
			if dec.OMO != nil {
				for _, id := range dec.OMO.StartReduce {
					started[id] = true
				}
			}
			for k, a := range dec.Allocations {
				s := in[k]
				alloc[s] = [2]int{a.Map, a.Reduce}
				s.running = [2]int{a.Map, a.Reduce}
				if a.Reduce > 0 || started[s.ID] {
					s.started = true
				}
			}
		}
		t0 := r.t
		if err := r.advance(alloc, &live); err != nil {
			return err
		}
		if fair != nil {
			r.fairSum += *fair * (r.t - t0)
			r.fairTime += r.t - t0
		}
	}
	return nil
}

// eligible reports whether job s's reduce phase is offered to the policy.
func (r *runner) eligible(s *job) bool {
	if !s.Job.hasReduce() || s.reduceRem() <= 0 {
		return false
	}
	if s.started || r.cfg.OMO.LazyStart || s.mapRem == 0 {
		return true
	}
	return r.slowStarted(s)
}

// slowStarted reports whether job s has done SlowStart of its map work, or
// will within timeTol at its current slots.
func (r *runner) slowStarted(s *job) bool {
	short := s.mapRem - (1-r.cfg.SlowStart)*s.MapWork
	return short <= math.Max(doneTol*s.MapWork, float64(s.running[0])*timeTol)
}

// request builds this decision's epoch request over the live jobs that have
// arrived, and returns them in request order.
func (r *runner) request() (epoch.Request, []*job) {
	cfg := r.cfg
	req := epoch.Request{
		Epoch:       int64(r.decisions + 1),
		Now:         r.t,
		EpochLength: r.t - r.lastDec, // the window ReleasedSlots covers (OMO Eq. 4.1)
		Objective:   cfg.Metric,
		Policy:      cfg.Policy,
		Slots:       epoch.Slots{Map: cfg.MapSlots, Reduce: cfg.ReduceSlots},
		Ratio:       epoch.Ratio{Mode: cfg.Ratio, BorrowMap: cfg.BorrowMap, BorrowReduce: cfg.BorrowReduce},
		OMO:         epoch.OMO{LazyStart: cfg.OMO.LazyStart, BatchFinish: cfg.OMO.BatchFinish, Bandwidth: cfg.Bandwidth},
	}
	if cfg.Estimate != Oracle {
		req.Estimate = epoch.Estimate{Work: cfg.Estimate, MinOne: cfg.EstimateMinOne}
	}
	var in []*job
	var inMap, inRed int
	for _, s := range r.jobs {
		if s.Arrival > r.t || s.done >= 0 {
			continue
		}
		in = append(in, s)
		if s.mapRem > 0 {
			inMap++
		}
		if r.eligible(s) {
			inRed++
		}
	}
	minEach := func(slots, n int) int {
		if n == 0 {
			return 0
		}
		return int(math.Floor(cfg.MinShare * float64(slots) / float64(n)))
	}
	mMin, rMin := minEach(cfg.MapSlots, inMap), minEach(cfg.ReduceSlots, inRed)
	released := 0
	for _, s := range in {
		w := cmp.Or(s.Weight, 1)
		consumed := s.consumed
		ej := epoch.Job{ID: s.ID, Pool: s.Pool, Submitted: s.Arrival, Weight: &w, Deadline: s.Deadline,
			HasDeadline: s.HasDeadline, SLA: s.SLA, ConsumedSlotSeconds: &consumed}
		left := [2]int{tasksLeft(s.MapTasks, s.mapRem, s.MapWork, s.running[0]), 0}
		if s.hasReduce() {
			left[1] = tasksLeft(s.ReduceTasks, s.reduceRem(), s.reduceTotal(), s.running[1])
		}
		for ph := range 2 {
			released += max(0, s.lastLeft[ph]-left[ph])
			s.lastLeft[ph] = left[ph]
		}
		if s.mapRem > 0 {
			run := min(s.running[0], left[0])
			ej.Map = &epoch.Phase{Min: cmp.Or(s.Min, mMin), Max: left[0], Work: s.mapRem, TotalWork: s.MapWork,
				Pending: left[0] - run, Running: run, Tasks: s.MapTasks, AvgTaskTime: s.MapWork / float64(s.MapTasks),
				OutputBytesPerTask: s.ShuffleBytes / float64(s.MapTasks), Started: true}
		}
		if r.eligible(s) {
			if !cfg.OMO.LazyStart {
				s.started = true // Hadoop launches reduce tasks once slowstart is reached
			}
			run := min(s.running[1], left[1])
			ej.Reduce = &epoch.Phase{Min: cmp.Or(s.Min, rMin), Max: left[1], Work: s.reduceRem(), TotalWork: s.reduceTotal(),
				Pending: left[1] - run, Running: run, Tasks: s.ReduceTasks, AvgTaskTime: s.reduceTotal() / float64(s.ReduceTasks),
				Started: s.started}
		}
		if cfg.Estimate != Oracle {
			// What a shim knows: counts, and the mean of the completed
			// tasks' durations; the running tasks have shared the work done
			// beyond the completed ones (their elapsed time, one slot each).
			for ph, p := range [2]*epoch.Phase{ej.Map, ej.Reduce} {
				if p == nil {
					continue
				}
				done := p.Tasks - p.Pending - p.Running
				if cfg.EstimateOnceSampled && done == 0 {
					continue // given work wins (section 7.2): the truth until a sample
				}
				total, rem := s.MapWork, s.mapRem
				if ph == 1 {
					total, rem = s.reduceTotal(), s.reduceRem()
				}
				mean := total / float64(p.Tasks)
				p.Work, p.TotalWork = 0, 0
				p.AvgTaskTime = meanOf(s.sampled[ph], done)
				p.RunningElapsed = max(0, (total-rem)-float64(done)*mean)
			}
		}
		req.Jobs = append(req.Jobs, ej)
	}
	// Tasks of jobs that completed since the last decision were released too.
	for _, s := range r.jobs {
		if s.done >= 0 && s.done > r.lastDec && s.lastLeft != [2]int{} {
			released += s.lastLeft[0] + s.lastLeft[1]
			s.lastLeft = [2]int{}
		}
	}
	req.ReleasedSlots = released
	return req, in
}

// rates is one job's progress rates under an allocation, slot-seconds per
// second, and when (after now) the rates next change without a decision.
type rates struct {
	mapR, shR, compR float64
	idle             float64 // reduce slots held but idle
}

func (r *runner) ratesOf(s *job, a [2]int) (rt rates, change float64) {
	change = math.Inf(1)
	am, ar := float64(a[0]), float64(a[1])
	if s.mapRem > 0 {
		rt.mapR = am
	}
	if ar == 0 || !s.hasReduce() || s.reduceRem() <= 0 {
		return rt, change
	}
	if s.mapRem == 0 && s.shWork-s.shDone <= ar*timeTol {
		s.shDone = s.shWork // the shuffle ends now
	}
	if s.shDone < s.shWork {
		// Map output arrives at the maps' rate, scaled to shuffle work.
		availRate := rt.mapR * s.shWork / s.MapWork
		avail := s.shWork
		if s.mapRem > 0 {
			avail = s.shWork * s.mapFrac()
		}
		behind := avail - s.shDone
		switch {
		case s.mapRem == 0:
			rt.shR = ar
			change = behind / ar // the shuffle ends; computing begins
		case behind > doneTol*s.shWork && ar > availRate && behind/(ar-availRate) > timeTol:
			rt.shR = ar
			change = behind / (ar - availRate) // catches up with the maps
		case behind > doneTol*s.shWork:
			rt.shR = ar
		default:
			rt.shR = math.Min(ar, availRate)
		}
		rt.idle = ar - rt.shR
		return rt, change
	}
	if s.mapRem == 0 {
		rt.compR = ar
	} else {
		rt.idle = ar // shuffle done, waiting for the last maps (free shuffle)
	}
	return rt, change
}

// advance runs the allocation until the next decision: the next epoch
// boundary, a phase completion, or a job's map phase reaching slowstart.
// Shuffle catch-ups and shuffle ends change rates within the interval
// without a decision, as they would between a shim's heartbeats.
func (r *runner) advance(alloc map[*job][2]int, live *int) error {
	cfg := r.cfg
	next := (math.Floor(r.t/cfg.Epoch+doneTol) + 1) * cfg.Epoch
	if len(alloc) == 0 {
		// Nobody is here: jump to the first boundary at or after the next arrival.
		arr := math.Inf(1)
		for _, s := range r.jobs {
			if s.done < 0 && s.Arrival > r.t {
				arr = math.Min(arr, s.Arrival)
			}
		}
		if math.IsInf(arr, 1) {
			return fmt.Errorf("cluster: t=%g: live jobs but none can run", r.t)
		}
		next = math.Max(next, math.Ceil(arr/cfg.Epoch-doneTol)*cfg.Epoch)
		r.t = next
		return nil
	}
	for {
		stop := next
		decide := false
		type jr struct {
			s  *job
			rt rates
		}
		// Map iteration order is random: visit jobs in index order, since
		// both the float sums and which event sets decide depend on it.
		held := make([]*job, 0, len(alloc))
		for s, a := range alloc {
			if a != [2]int{} {
				held = append(held, s)
			}
		}
		slices.SortFunc(held, func(a, b *job) int { return cmp.Compare(a.idx, b.idx) })
		var active []jr
		for _, s := range held {
			a := alloc[s]
			rt, change := r.ratesOf(s, a)
			active = append(active, jr{s, rt})
			stop = math.Min(stop, r.t+change)
			if rt.mapR > 0 {
				if d := r.t + s.mapRem/rt.mapR; d <= stop {
					stop, decide = d, true
				}
				if !cfg.OMO.LazyStart && !s.started && s.hasReduce() && !r.slowStarted(s) {
					if d := r.t + (s.mapRem-(1-cfg.SlowStart)*s.MapWork)/rt.mapR; d <= stop {
						stop, decide = d, true
					}
				}
			}
			if rt.compR > 0 {
				if d := r.t + s.compRem/rt.compR; d <= stop {
					stop, decide = d, true
				}
			}
		}
		if stop == next {
			decide = true
		}
		dt := stop - r.t
		for _, x := range active {
			s, rt := x.s, x.rt
			a := alloc[s]
			s.consumed += float64(a[0]+a[1]) * dt
			r.idleReduce += rt.idle * dt
			s.mapRem -= rt.mapR * dt
			s.shDone += rt.shR * dt
			s.compRem -= rt.compR * dt
			if s.mapRem <= math.Max(doneTol*s.MapWork, rt.mapR*timeTol) {
				s.mapRem = 0
			}
			if s.mapRem == 0 && s.mapDone < 0 && rt.mapR > 0 {
				s.mapDone = stop
			}
			if s.shDone >= s.shWork*(1-doneTol) {
				s.shDone = s.shWork
			} else if s.mapRem > 0 {
				s.shDone = math.Min(s.shDone, s.shWork*s.mapFrac())
			}
			if s.compRem <= math.Max(doneTol*s.ReduceWork, rt.compR*timeTol) {
				s.compRem = 0
			}
			if s.done < 0 && s.mapRem == 0 && s.reduceRem() <= 0 {
				s.done = stop
				*live--
				r.completed++
				if cfg.Progress != nil {
					cfg.Progress(r.completed)
				}
			}
		}
		r.record(alloc, stop)
		r.t = stop
		if decide || *live == 0 {
			return nil
		}
	}
}

// report assembles the outcomes in input order.
func (r *runner) report(st []*job) Report {
	rep := Report{Jobs: make([]Outcome, len(st)), Decisions: r.decisions, IdleReduceSlotSeconds: r.idleReduce}
	rates := make([]float64, len(st))
	n := float64(len(st))
	for i, s := range st {
		o := Outcome{ID: s.ID, Arrival: s.Arrival, MapDone: s.mapDone, Completion: s.done, Response: s.done - s.Arrival,
			SlotSeconds: s.consumed}
		o.Stretch = o.Response / s.iso
		if o.Response > 0 {
			o.Rate = s.consumed / o.Response
		}
		pj := penalty.Job{Submitted: s.Arrival, Deadline: s.Deadline, HasDeadline: s.HasDeadline, SLA: s.SLA}
		if s.HasDeadline {
			rep.Deadlines = true
			o.Tardiness = penalty.AvgTardiness.Of(pj, s.done)
			if o.Tardiness > 0 {
				rep.TardyJobs++
			}
		}
		if len(s.SLA) > 0 {
			rep.Deadlines = true
			o.SLACost = penalty.SLACost.Of(pj, s.done)
		}
		rep.TotalTardiness += o.Tardiness
		rep.SLACost += o.SLACost
		rep.Jobs[i] = o
		rates[i] = o.Rate
		rep.Makespan = math.Max(rep.Makespan, o.Completion)
		rep.MeanResponse += o.Response / n
		rep.MeanStretch += o.Stretch / n
		rep.MaxStretch = math.Max(rep.MaxStretch, o.Stretch)
	}
	rep.Fairness = ratio.Jain(rates)
	if r.fairTime > 0 {
		rep.EpochFairness = r.fairSum / r.fairTime
	}
	return rep
}

// record appends [r.t, stop] to the timeline with the slots alloc gives
// each job, listing only the jobs whose count changed.
func (r *runner) record(alloc map[*job][2]int, stop float64) {
	tl := r.timeline
	if tl == nil || !(stop > r.t) {
		return
	}
	var changes []mps.Change
	for _, s := range r.jobs {
		a := alloc[s]
		if n := a[0] + a[1]; n != r.held[s.idx] {
			r.held[s.idx] = n
			changes = append(changes, mps.Change{Job: s.idx, Slots: n})
		}
	}
	slices.SortFunc(changes, func(a, b mps.Change) int { return cmp.Compare(a.Job, b.Job) })
	if len(tl.Intervals) == 0 {
		copy(tl.First, r.held)
	}
	if k := len(tl.Intervals) - 1; k >= 0 && len(changes) == 0 && tl.Intervals[k].End == r.t {
		tl.Intervals[k].End = stop // nothing changed: extend the interval
		return
	}
	tl.Intervals = append(tl.Intervals, mps.Interval{Start: r.t, End: stop, Changes: changes})
}
