// Package shim is a fake cluster-scheduler shim for end-to-end tests and the
// load tool: it keeps a MapReduce cluster's jobs, writes the epoch request a
// Hadoop shim would post, and evolves the jobs by the decision it gets back.
//
// The evolution is deliberately realistic rather than random noise, because
// flexd's per-cluster state (OMO averages, the epoch guard) and its solver
// paths only get exercised by request sequences a real cluster produces:
// work shrinks by what the allocation did during epoch_length, a job's map
// phase finishes before its reduce phase starts, finished jobs leave and new
// ones arrive. Everything is deterministic for a seed.
package shim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/flexd/flexd/httpapi"
)

// Config describes one simulated cluster. Zero values take the defaults
// documented on each field.
type Config struct {
	// Cluster names the cluster (default "c1").
	Cluster string
	// Seed makes the workload reproducible.
	Seed uint64
	// Jobs is how many jobs the cluster starts with (default 10).
	Jobs int
	// MaxJobs caps the jobs present at once (default 2*Jobs).
	MaxJobs int
	// Replace, when true, submits a new job whenever one finishes, so the
	// job count stays at Jobs: what a steady load test wants.
	Replace bool
	// ArrivalRate is the chance per epoch that an extra job arrives
	// (up to MaxJobs); it is what makes the job set change in tests.
	ArrivalRate float64
	// MapSlots and ReduceSlots are the cluster's slots (defaults 40 and 20).
	MapSlots, ReduceSlots int
	// EpochLength is seconds between epochs (default 0.5, FLEX's cadence).
	EpochLength float64
	// Policy and Objective are sent as is (defaults: the server's).
	Policy, Objective string
	// RatioMode is sent as ratio.mode when set.
	RatioMode string
	// Start is the cluster clock at epoch 1 (default 1000).
	Start float64
	// StaggerProgress, when true, starts the initial jobs at random points
	// of their lives (some already reducing), so both phases carry load from
	// the first epoch instead of after a long warm-up.
	StaggerProgress bool
}

func (c Config) withDefaults() Config {
	if c.Cluster == "" {
		c.Cluster = "c1"
	}
	if c.Jobs <= 0 {
		c.Jobs = 10
	}
	if c.MaxJobs < c.Jobs {
		c.MaxJobs = 2 * c.Jobs
	}
	if c.MapSlots <= 0 {
		c.MapSlots = 40
	}
	if c.ReduceSlots <= 0 {
		c.ReduceSlots = 20
	}
	if c.EpochLength <= 0 {
		c.EpochLength = 0.5
	}
	if c.Start == 0 {
		c.Start = 1000
	}
	return c
}

// job is one MapReduce job as the shim tracks it.
type job struct {
	id                       string
	submitted                float64
	weight                   float64
	deadline                 float64
	mapTasks, reduceTasks    int
	mapTaskTime, redTaskTime float64 // seconds per task
	mapLeft, reduceLeft      float64 // remaining slot-seconds
	consumed                 float64
}

func (j *job) mapTotal() float64    { return float64(j.mapTasks) * j.mapTaskTime }
func (j *job) reduceTotal() float64 { return float64(j.reduceTasks) * j.redTaskTime }
func (j *job) mapDone() bool        { return j.mapLeft <= 0 }
func (j *job) done() bool           { return j.mapDone() && j.reduceLeft <= 0 }

// Cluster is one simulated cluster. It is not safe for concurrent use: a
// shim calls flexd once per epoch, one call at a time.
type Cluster struct {
	cfg      Config
	rng      *rand.Rand
	jobs     []*job
	nextID   int
	epoch    int64
	now      float64
	released int
	// Finished counts jobs that completed both phases so far.
	Finished int
	// Arrived counts jobs submitted after the start.
	Arrived int
}

// New returns a cluster at epoch 0 with its initial jobs; Request gives
// epoch 1.
func New(cfg Config) *Cluster {
	cfg = cfg.withDefaults()
	c := &Cluster{
		cfg: cfg,
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)),
		now: cfg.Start,
	}
	for range cfg.Jobs {
		j := c.newJob(cfg.Start - c.rng.Float64()*30)
		if cfg.StaggerProgress {
			// Some jobs are mid-map, some already reducing.
			p := c.rng.Float64() * 1.6
			if p < 1 {
				j.mapLeft = math.Round(j.mapTotal()*(1-p)*10) / 10
				j.mapLeft = max(j.mapLeft, j.mapTaskTime)
			} else {
				j.mapLeft = 0
				j.reduceLeft = math.Round(j.reduceTotal()*(2-p)*10) / 10
			}
		}
		c.jobs = append(c.jobs, j)
	}
	return c
}

// Name is the cluster's name.
func (c *Cluster) Name() string { return c.cfg.Cluster }

// Epoch is the number of the next request.
func (c *Cluster) Epoch() int64 { return c.epoch + 1 }

// Jobs is how many jobs are present now.
func (c *Cluster) Jobs() int { return len(c.jobs) }

// newJob draws a job submitted at t: tens to hundreds of map tasks of a few
// seconds each, a handful of longer reduce tasks.
func (c *Cluster) newJob(t float64) *job {
	c.nextID++
	j := &job{
		id:          fmt.Sprintf("job_%04d", c.nextID),
		submitted:   math.Round(t*1000) / 1000,
		weight:      []float64{0.5, 1, 1, 2}[c.rng.IntN(4)],
		mapTasks:    4 + c.rng.IntN(60),
		reduceTasks: 1 + c.rng.IntN(8),
		mapTaskTime: float64(1 + c.rng.IntN(4)),
		redTaskTime: float64(2 + c.rng.IntN(6)),
	}
	j.mapLeft = j.mapTotal()
	j.reduceLeft = j.reduceTotal()
	// A loose deadline so deadline metrics are well defined.
	j.deadline = math.Round(t + 3*(j.mapTotal()+j.reduceTotal()))
	return j
}

// Request is the body for the next epoch. Calling it twice without Apply
// returns the same request, which is what a retry needs.
func (c *Cluster) Request() httpapi.EpochRequest {
	req := httpapi.EpochRequest{
		Epoch:         c.epoch + 1,
		Now:           math.Round(c.now*1000) / 1000,
		EpochLength:   c.cfg.EpochLength,
		Objective:     c.cfg.Objective,
		Policy:        c.cfg.Policy,
		Slots:         httpapi.PhaseSlots{Map: c.cfg.MapSlots, Reduce: c.cfg.ReduceSlots},
		ReleasedSlots: c.released,
		Jobs:          make([]httpapi.EpochJob, 0, len(c.jobs)),
	}
	if c.cfg.RatioMode != "" {
		req.Ratio = &httpapi.RatioConfig{Mode: c.cfg.RatioMode}
	}
	// The jobs' optional numbers and phases point into shared arrays: a
	// handful of allocations per request rather than six per job (the
	// load tool builds 300 of these a second beside the server).
	n := len(c.jobs)
	floats := make([]float64, 3*n)
	phases := make([]httpapi.PhaseState, 2*n)
	flags := make([]bool, n)
	for i, j := range c.jobs {
		w, d, consumed := &floats[3*i], &floats[3*i+1], &floats[3*i+2]
		*w, *d, *consumed = j.weight, j.deadline, j.consumed
		ej := httpapi.EpochJob{
			ID: j.id, Pool: "default", Submitted: j.submitted,
			Weight: w, Deadline: d, ConsumedSlotSeconds: consumed,
		}
		if !j.mapDone() {
			pending := int(math.Ceil(j.mapLeft / j.mapTaskTime))
			ej.Map = &phases[2*i]
			*ej.Map = httpapi.PhaseState{
				Min: 0, Max: max(1, pending), Work: j.mapLeft, TotalWork: j.mapTotal(),
				Pending: pending, Tasks: j.mapTasks, AvgTaskTime: j.mapTaskTime,
			}
		}
		started := &flags[i]
		*started = j.mapDone()
		red := &phases[2*i+1]
		*red = httpapi.PhaseState{Min: 0, Max: j.reduceTasks, Tasks: j.reduceTasks, Started: started}
		if *started {
			// A reduce phase only has work to schedule once the maps are done.
			red.Work = j.reduceLeft
			red.TotalWork = j.reduceTotal()
			red.Pending = int(math.Ceil(j.reduceLeft / j.redTaskTime))
			red.AvgTaskTime = j.redTaskTime
		}
		ej.Reduce = red
		req.Jobs = append(req.Jobs, ej)
	}
	return req
}

// Apply advances the cluster by one epoch under the decision resp (the
// answer to Request): each job's remaining work shrinks by its slots times
// epoch_length, jobs whose reduce phase ends leave, and new jobs arrive.
func (c *Cluster) Apply(resp httpapi.EpochResponse) error {
	if resp.Epoch != c.epoch+1 {
		return fmt.Errorf("decision for epoch %d, want %d", resp.Epoch, c.epoch+1)
	}
	if resp.Cluster != c.cfg.Cluster {
		return fmt.Errorf("decision for cluster %q, want %q", resp.Cluster, c.cfg.Cluster)
	}
	byID := make(map[string]*job, len(c.jobs))
	for _, j := range c.jobs {
		byID[j.id] = j
	}
	var errs []error
	dt := c.cfg.EpochLength
	for _, a := range resp.Allocations {
		j, ok := byID[a.ID]
		if !ok {
			errs = append(errs, fmt.Errorf("allocation for unknown job %q", a.ID))
			continue
		}
		if a.Map < 0 || a.Reduce < 0 {
			errs = append(errs, fmt.Errorf("job %s: negative allocation %+v", a.ID, a))
			continue
		}
		// Reduce runs only if the map phase was already done at the start
		// of the epoch: the phases are sequential.
		if j.mapDone() {
			did := min(j.reduceLeft, float64(a.Reduce)*dt)
			j.reduceLeft = roundWork(j.reduceLeft - did)
			j.consumed += did
		} else {
			did := min(j.mapLeft, float64(a.Map)*dt)
			j.mapLeft = roundWork(j.mapLeft - did)
			j.consumed += did
		}
	}
	c.released = 0
	c.jobs = slices.DeleteFunc(c.jobs, func(j *job) bool {
		if j.done() {
			c.Finished++
			c.released += j.reduceTasks
			return true
		}
		return false
	})
	c.epoch++
	c.now += dt
	for c.cfg.Replace && len(c.jobs) < c.cfg.Jobs {
		c.jobs = append(c.jobs, c.newJob(c.now))
		c.Arrived++
	}
	if len(c.jobs) < c.cfg.MaxJobs && c.rng.Float64() < c.cfg.ArrivalRate {
		c.jobs = append(c.jobs, c.newJob(c.now))
		c.Arrived++
	}
	// An empty cluster still posts epochs; give it work again so the
	// sequence keeps exercising the solver.
	if len(c.jobs) == 0 {
		c.jobs = append(c.jobs, c.newJob(c.now))
		c.Arrived++
	}
	return errors.Join(errs...)
}

// roundWork keeps work on a millisecond grid so floating-point dust never
// leaves a job with 1e-13 slot-seconds to do.
func roundWork(w float64) float64 {
	w = math.Round(w*1000) / 1000
	if w < 1e-3 {
		return 0
	}
	return w
}
