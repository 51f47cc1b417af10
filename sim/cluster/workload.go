package cluster

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/sim/swim"
)

// GiB is 2^30 bytes.
const GiB = 1 << 30

// arrivalStream separates the arrival draws from sim.GenerateInstance's
// stream (seed, index), so adding arrivals does not change the instance.
const arrivalStream = 1 << 40

// PoissonArrivals returns n submission times whose gaps are independent
// exponential draws of mean lambda seconds, the first job at 0 (FLEX 4.2:
// "the time between submission of job i and job i+1 is chosen from an
// independently drawn exponential distribution of mean lambda"). Lambda 0
// submits every job at 0. The draws come from the PCG stream (seed, stream).
func PoissonArrivals(n int, lambda float64, seed, stream uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, stream))
	out := make([]float64, n)
	for i := 1; i < n; i++ {
		out[i] = out[i-1] + lambda*rng.ExpFloat64()
	}
	return out
}

// FLEX41 configures the FLEX 4.1 workload in the closed loop.
type FLEX41 struct {
	// Workload is the instance's shape (sim.DefaultWorkload when zero):
	// its Slots should be the cluster's total slots, so the total work is
	// sim.WorkPerSlot slot-seconds per slot, as in the paper.
	Workload sim.Workload
	// Index picks the instance of the seed's study.
	Index int
	// Unit is how many seconds one generator time unit lasts (default 60:
	// the paper's 4.2 experiments measure lambda in minutes); work, task
	// size, deadlines and SLA steps scale with it.
	Unit float64
	// Lambda is the mean inter-arrival time, seconds (0: all at once).
	Lambda float64
	// ReduceShare is the share of each job's work in its reduce phase
	// (default 0.3; the generator draws one work per job, the paper's
	// phases are separate problems with the same shape).
	ReduceShare float64
}

// GenerateFLEX41 turns instance cfg.Index of sim's FLEX 4.1 study with the
// given seed into closed-loop jobs: each job's work is split between a map
// and a reduce phase by ReduceShare, each phase's tasks are its work over
// sim.TaskWork (so a job's max is its task count, as in the generator),
// the instance's minimum, weight, deadline and SLA steps are kept (times
// shifted by the job's Poisson arrival), and there is no shuffle.
func GenerateFLEX41(cfg FLEX41, seed uint64) ([]Job, error) {
	w := cfg.Workload
	if w == (sim.Workload{}) {
		w = sim.DefaultWorkload()
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("cluster: flex41: %w", err)
	}
	unit := cmp.Or(cfg.Unit, 60)
	share := cmp.Or(cfg.ReduceShare, 0.3)
	if !(unit > 0) || !(share >= 0 && share < 1) || !(cfg.Lambda >= 0) || cfg.Index < 0 {
		return nil, fmt.Errorf("cluster: flex41: unit %v, reduce share %v, lambda %v, index %d out of range", unit, share, cfg.Lambda, cfg.Index)
	}
	p := sim.GenerateInstance(w, seed, cfg.Index)
	arr := PoissonArrivals(len(p.Jobs), cfg.Lambda, seed, arrivalStream+uint64(cfg.Index))
	task := sim.TaskWork * unit
	jobs := make([]Job, len(p.Jobs))
	for i, pj := range p.Jobs {
		work := pj.Work * unit
		mw, rw := work*(1-share), work*share
		j := Job{
			ID: pj.ID, Arrival: arr[i], Weight: pj.Weight, Min: pj.Min,
			MapWork: mw, MapTasks: max(1, int(math.Ceil(mw/task-doneTol))),
			Deadline: arr[i] + pj.Deadline*unit, HasDeadline: pj.HasDeadline,
		}
		if rw > 0 {
			j.ReduceWork, j.ReduceTasks = rw, max(1, int(math.Ceil(rw/task-doneTol)))
		}
		for _, s := range pj.SLA {
			j.SLA = append(j.SLA, penalty.Step{Deadline: arr[i] + s.Deadline*unit, Penalty: s.Penalty})
		}
		jobs[i] = j
	}
	return jobs, nil
}

// Table44 configures the dissertation's simple shuffle-heavy workload
// (Table 4.4, 4.4.3.2): 8 Terasort jobs of 20 GB input and 20 GB shuffle,
// 80 map and 2 reduce tasks each, submitted 2 seconds apart. The
// dissertation gives bytes, not task times; the defaults are stated here.
type Table44 struct {
	// Jobs (default 8) and Gap, seconds between submissions (default 2).
	Jobs int
	Gap  float64
	// MapTasks (default 80) and ReduceTasks (default 2) per job.
	MapTasks, ReduceTasks int
	// MapTaskTime is one map task's time, seconds (default 30: a 256 MB
	// block at about 8.5 MB/s); ReduceTaskTime one reduce task's computing
	// after its shuffle (default 60).
	MapTaskTime, ReduceTaskTime float64
	// ShuffleBytes is each job's map output (default 20 GiB).
	ShuffleBytes float64
}

// GenerateTable44 returns the jobs of cfg.
func GenerateTable44(cfg Table44) []Job {
	n := cmp.Or(cfg.Jobs, 8)
	gap := cmp.Or(cfg.Gap, 2)
	m, r := cmp.Or(cfg.MapTasks, 80), cmp.Or(cfg.ReduceTasks, 2)
	tm, tr := cmp.Or(cfg.MapTaskTime, 30), cmp.Or(cfg.ReduceTaskTime, 60)
	sh := cmp.Or(cfg.ShuffleBytes, 20*GiB)
	jobs := make([]Job, n)
	for i := range jobs {
		jobs[i] = Job{ID: fmt.Sprintf("terasort%d", i+1), Arrival: float64(i) * gap, MapTasks: m, MapWork: float64(m) * tm,
			ReduceTasks: r, ReduceWork: float64(r) * tr, ShuffleBytes: sh}
	}
	return jobs
}

// Mixed configures a mix of map-heavy and reduce-heavy jobs arriving as a
// Poisson process (DynamicMR's and FRESH's motivation: a fixed split idles
// one phase's slots while the other phase queues).
type Mixed struct {
	// Jobs is the number of jobs (default 20).
	Jobs int
	// MapHeavy is the share of map-heavy jobs in [0, 1]; round(MapHeavy *
	// Jobs) of them, at random positions. Taken literally (0 is all
	// reduce-heavy).
	MapHeavy float64
	// Lambda is the mean inter-arrival time, seconds; 0 submits every job
	// at once (DynamicMR's batch submission). The command line's default is
	// 30.
	Lambda float64
	// Pools, when > 1, puts job i in pool "p<i mod Pools>" (PD-DHSA).
	Pools int
}

// The shapes of the mixed workload's jobs, before a U[0.5, 1.5) size
// factor on the task counts. A map-heavy job's map work is 8 times its
// reduce work; a reduce-heavy job's reduce work (with its shuffle at 64
// MiB/s) about 6 times its map work.
const (
	mhMapTasks, mhMapTime, mhReduceTasks, mhReduceTime = 80, 20.0, 4, 40.0
	mhShufflePerMap                                    = 16 << 20
	rhMapTasks, rhMapTime, rhReduceTasks, rhReduceTime = 20, 20.0, 20, 80.0
	rhShufflePerMap                                    = 256 << 20
)

// GenerateMixed returns the jobs of cfg drawn with seed.
func GenerateMixed(cfg Mixed, seed uint64) ([]Job, error) {
	n := cmp.Or(cfg.Jobs, 20)
	if n < 1 || !(cfg.MapHeavy >= 0 && cfg.MapHeavy <= 1) || !(cfg.Lambda >= 0) {
		return nil, fmt.Errorf("cluster: mixed: %d jobs, map-heavy share %v, lambda %v out of range", n, cfg.MapHeavy, cfg.Lambda)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	heavy := make([]bool, n)
	nm := int(math.Round(cfg.MapHeavy * float64(n)))
	for x, pos := range rng.Perm(n) {
		heavy[pos] = x < nm
	}
	arr := PoissonArrivals(n, cfg.Lambda, seed, arrivalStream)
	jobs := make([]Job, n)
	for i := range jobs {
		scale := func(k int) int { return max(1, int(math.Round(float64(k)*(0.5+rng.Float64())))) }
		var j Job
		if heavy[i] {
			m, r := scale(mhMapTasks), scale(mhReduceTasks)
			j = Job{ID: fmt.Sprintf("m%02d", i), MapTasks: m, MapWork: float64(m) * mhMapTime,
				ReduceTasks: r, ReduceWork: float64(r) * mhReduceTime, ShuffleBytes: float64(m) * mhShufflePerMap}
		} else {
			m, r := scale(rhMapTasks), scale(rhReduceTasks)
			j = Job{ID: fmt.Sprintf("r%02d", i), MapTasks: m, MapWork: float64(m) * rhMapTime,
				ReduceTasks: r, ReduceWork: float64(r) * rhReduceTime, ShuffleBytes: float64(m) * rhShufflePerMap}
		}
		j.Arrival = arr[i]
		if cfg.Pools > 1 {
			j.Pool = fmt.Sprintf("p%d", i%cfg.Pools)
		}
		jobs[i] = j
	}
	return jobs, nil
}

// FromSWIM turns the first n jobs of a converted SWIM trace (all when n <=
// 0) into closed-loop jobs: submit times from the first job's, divided by
// compress (>= 1 squeezes the trace so jobs overlap; 0 means 1), bytes and
// tasks as conv derived them. The conversion's reduce work covers shuffle
// plus output at conv.ReduceRate; the shuffle part, ShuffleBytes /
// ReduceRate, is left to the simulator's shuffle (run it with Bandwidth =
// conv.ReduceRate to keep the conversion's reduce work exactly) and the
// rest is the reduce computing.
func FromSWIM(jobs []swim.Job, conv swim.Conversion, n int, compress float64) []Job {
	conv = swimDefaults(conv)
	compress = cmp.Or(compress, 1)
	if n <= 0 || n > len(jobs) {
		n = len(jobs)
	}
	out := make([]Job, n)
	for i, j := range jobs[:n] {
		cj := Job{ID: fmt.Sprintf("%s@%d", j.Name, j.Line), Arrival: (j.Submit - jobs[0].Submit) / compress,
			MapWork: j.MapWork, MapTasks: j.MapTasks}
		if j.ReduceTasks > 0 {
			sh := float64(j.ShuffleBytes)
			cj.ReduceTasks, cj.ShuffleBytes = j.ReduceTasks, sh
			cj.ReduceWork = math.Max(j.ReduceWork-sh/conv.ReduceRate, 0)
		}
		out[i] = cj
	}
	return out
}

// swimDefaults is swim's conversion with its defaults spelled out.
func swimDefaults(c swim.Conversion) swim.Conversion {
	d := swim.DefaultConversion()
	c.ReduceRate = cmp.Or(c.ReduceRate, d.ReduceRate)
	return c
}

// FLEX42 configures the workload of FLEX's cluster experiments (section
// 4.2), as far as the paper describes it: a set of jobs whose map and
// reduce sizes are N(10, Sigma^2) units of UnitTasks tasks, truncated at one
// unit (D-F6: with Sigma = 4 the smallest job is then about a tenth of the
// largest, as the paper says), submitted with exponential gaps of mean
// Lambda. The minima come from Config.MinShare, the pool's minimum split
// evenly (slack = 1 - MinShare).
type FLEX42 struct {
	// Jobs is the number of jobs (default 10, the paper's).
	Jobs int
	// Sigma is the spread of the job sizes, in units (>= 0).
	Sigma float64
	// Lambda is the mean inter-arrival time, seconds (0: all at once).
	Lambda float64
	// UnitTasks is the tasks per size unit (default 20).
	UnitTasks int
	// MapTaskTime and ReduceTaskTime are the mean task durations, seconds
	// (defaults 30 and 60).
	MapTaskTime, ReduceTaskTime float64
}

// flex42Stream separates FLEX42's size draws from the other generators'.
const flex42Stream = 42 << 32

// GenerateFLEX42 draws the FLEX 4.2 workload with the given seed: for each
// job a map and a reduce size, independently, each rounded to whole tasks;
// no shuffle (the paper's Jaql jobs are described by their task counts).
func GenerateFLEX42(cfg FLEX42, seed uint64) ([]Job, error) {
	n := cmp.Or(cfg.Jobs, 10)
	unit := cmp.Or(cfg.UnitTasks, 20)
	mt, rt := cmp.Or(cfg.MapTaskTime, 30.0), cmp.Or(cfg.ReduceTaskTime, 60.0)
	if n < 1 || unit < 1 || !(cfg.Sigma >= 0) || math.IsInf(cfg.Sigma, 0) || !(cfg.Lambda >= 0) || !(mt > 0) || !(rt > 0) {
		return nil, fmt.Errorf("cluster: flex42: jobs %d, sigma %v, lambda %v, unit %d tasks, task times %v/%v out of range",
			n, cfg.Sigma, cfg.Lambda, unit, mt, rt)
	}
	rng := rand.New(rand.NewPCG(seed, flex42Stream))
	size := func() int {
		units := math.Max(1, 10+cfg.Sigma*rng.NormFloat64())
		return max(unit, int(math.Round(units*float64(unit))))
	}
	arr := PoissonArrivals(n, cfg.Lambda, seed, flex42Stream+1)
	width := len(fmt.Sprint(n - 1))
	jobs := make([]Job, n)
	for i := range jobs {
		m, r := size(), size()
		jobs[i] = Job{ID: fmt.Sprintf("j%0*d", width, i), Arrival: arr[i],
			MapWork: float64(m) * mt, MapTasks: m, ReduceWork: float64(r) * rt, ReduceTasks: r}
	}
	return jobs, nil
}
