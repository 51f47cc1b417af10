package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// MaxOptJobs is the largest J for which the study computes OPT: OPT is an
// exhaustive search over the J! MPS orders (10! is 3.6 million schedules per
// instance), as in the paper.
const MaxOptJobs = 10

// ErrTooManyJobs is returned (wrapped) when OPT is asked for more than
// MaxOptJobs jobs.
var ErrTooManyJobs = errors.New("OPT is exhaustive")

// Oracle returns OPT's objective on p for each of metrics, in order; each
// metric replaces p.Metric. It is a function type so that one exhaustive
// pass over the orders can score every metric at once (the MPS schedules of
// an order do not depend on the metric); PerMetricOptimal is the simple
// form that pays one pass per metric.
type Oracle func(p solver.Problem, metrics []penalty.Metric) ([]float64, error)

// PerMetricOptimal is an Oracle that runs the solver's "optimal" policy
// once per metric.
func PerMetricOptimal(p solver.Problem, metrics []penalty.Metric) ([]float64, error) {
	opt, ok := solver.ByName("optimal")
	if !ok {
		return nil, errors.New(`solver has no "optimal" policy`)
	}
	out := make([]float64, len(metrics))
	for x, m := range metrics {
		q := p
		q.Metric = m
		r, err := opt.Solve(q)
		if err != nil {
			return nil, fmt.Errorf("optimal, metric %s: %w", m, err)
		}
		out[x] = r.Value
	}
	return out, nil
}

// StudyConfig is one study: Instances instances of Workload, each solved by
// every policy under every metric and compared with OPT. Zero values mean
// defaults, except the workload's Small and Slack (see Workload).
type StudyConfig struct {
	Workload
	// Instances is the number of instances (default 100, as in the paper).
	Instances int
	// Metrics are the objectives to compare (default: the whole menu,
	// penalty.All(), in menu order).
	Metrics []penalty.Metric
	// Policies are the solver policies compared with OPT, by name
	// (default flex, fair, fifo).
	Policies []string
	// Effort is the Options.Effort the compared policies solve with
	// (solver.Options.Effort: 0 the default search, solver.FastestEffort
	// none, n times the default); fair and fifo do not search, and the
	// reference (Oracle, Indexed) is not affected.
	Effort int
	// SearchSeeds, when above 1, solves each instance that many times per
	// policy and metric, with solver.Options.SearchSeed 0 to SearchSeeds-1,
	// and takes the mean of the values as the instance's: FLEX's iterated
	// searches kick at random (seeded, so deterministic), and a ratio from
	// one seed of the kicks owes part of itself to that seed. fair and fifo
	// are solved once. At most MaxSearchSeeds.
	SearchSeeds int
	// Workers is the number of instances solved at once (default
	// GOMAXPROCS). It changes only the speed, never the numbers.
	Workers int
	// Oracle computes OPT (default solver.Exhaustive: one pass over every
	// order serves all metrics).
	Oracle Oracle
	// Indexed, when set, replaces Oracle: a reference that knows each
	// instance's index (SearchOracle's cache), which lifts the MaxOptJobs
	// limit.
	Indexed IndexedOracle
	// Progress, when set, is called after each instance with the number of
	// instances done and the total, from one goroutine at a time.
	Progress func(done, total int)

	// byName resolves policy names (solver.ByName when nil); tests replace
	// it to exercise the study without the real policies.
	byName func(string) (solver.Solver, bool)
}

// MaxSearchSeeds bounds StudyConfig.SearchSeeds.
const MaxSearchSeeds = 64

// DefaultPolicies are the policies the paper compares with OPT.
func DefaultPolicies() []string { return []string{"flex", "fair", "fifo"} }

func (c StudyConfig) withDefaults() StudyConfig {
	c.Instances = cmp.Or(c.Instances, 100)
	if len(c.Metrics) == 0 {
		for _, in := range penalty.All() {
			c.Metrics = append(c.Metrics, in.Name)
		}
	}
	if len(c.Policies) == 0 {
		c.Policies = DefaultPolicies()
	}
	c.Workers = cmp.Or(c.Workers, runtime.GOMAXPROCS(0))
	if c.Oracle == nil {
		c.Oracle = solver.Exhaustive
	}
	if c.byName == nil {
		c.byName = solver.ByName
	}
	return c
}

// Validate reports the first invalid setting of c (after defaults).
func (c StudyConfig) Validate() error {
	c = c.withDefaults()
	if err := c.Workload.Validate(); err != nil {
		return err
	}
	if c.Jobs > MaxOptJobs && c.Indexed == nil {
		return fmt.Errorf("%w: jobs = %d, at most %d", ErrTooManyJobs, c.Jobs, MaxOptJobs)
	}
	if c.Instances < 1 {
		return fmt.Errorf("instances = %d, want >= 1", c.Instances)
	}
	if c.SearchSeeds < 0 || c.SearchSeeds > MaxSearchSeeds {
		return fmt.Errorf("search seeds = %d, want 0 to %d", c.SearchSeeds, MaxSearchSeeds)
	}
	for _, m := range c.Metrics {
		if _, ok := penalty.Lookup(m); !ok {
			return fmt.Errorf("unknown metric %q", m)
		}
	}
	for _, p := range c.Policies {
		if _, ok := c.byName(p); !ok || p == "" {
			return fmt.Errorf("unknown policy %q", p)
		}
	}
	return nil
}

// Row is the summary of one (metric, policy) over a study's instances.
// Its JSON form (MarshalJSON) uses snake_case names and null for NaN.
type Row struct {
	// Sweep names the swept parameter ("slack" or "small") and Value its
	// value for this row; Sweep is empty outside a sweep.
	Sweep string
	Value float64
	// Metric and Policy identify the row.
	Metric penalty.Metric
	Policy string
	// Instances counts the instances in the ratios; Skipped counts those
	// left out because OPT was not positive (the paper: a ratio to a zero or
	// negative optimum is meaningless).
	Instances int
	Skipped   int
	// Avg and Worst are the mean and the largest of policy / OPT; NaN
	// (null in JSON) when no instance counted.
	Avg   float64
	Worst float64
	// WorstInstance is the index of the instance with the worst ratio (-1
	// when none), to regenerate it with GenerateInstance.
	WorstInstance int
}

// outcome is what one instance contributes: OPT per metric, and each
// policy's objective per metric.
type outcome struct {
	opt []float64   // [metric]
	val [][]float64 // [policy][metric]
	err error
}

// RunStudy generates the study's instances from seed and compares the
// policies with OPT. Rows come metric by metric (in cfg.Metrics order),
// policy by policy within a metric. On error it returns the error of the
// lowest-numbered failing instance, so the error is deterministic too.
func RunStudy(cfg StudyConfig, seed uint64) ([]Row, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	outs := runInstances(cfg, seed, cfg.Progress)
	return summarise(cfg, outs)
}

// runInstances solves every instance with a pool of cfg.Workers workers
// taking indexes from a shared counter; each result is stored at its index.
// After a failure no new instance starts.
func runInstances(cfg StudyConfig, seed uint64, progress func(done, total int)) []outcome {
	outs := make([]outcome, cfg.Instances)
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range min(cfg.Workers, cfg.Instances) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= cfg.Instances {
					return
				}
				outs[i] = solveInstance(cfg, i, GenerateInstance(cfg.Workload, seed, i))
				if outs[i].err != nil {
					outs[i].err = fmt.Errorf("instance %d: %w", i, outs[i].err)
					failed.Store(true)
				}
				if progress != nil {
					mu.Lock()
					done++
					progress(done, cfg.Instances)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return outs
}

func solveInstance(cfg StudyConfig, index int, p solver.Problem) outcome {
	o := outcome{val: make([][]float64, len(cfg.Policies))}
	var err error
	if cfg.Indexed != nil {
		o.opt, err = cfg.Indexed(index, p, cfg.Metrics)
	} else {
		o.opt, err = cfg.Oracle(p, cfg.Metrics)
	}
	if err != nil {
		return outcome{err: fmt.Errorf("OPT: %w", err)}
	}
	if len(o.opt) != len(cfg.Metrics) {
		return outcome{err: fmt.Errorf("OPT returned %d values for %d metrics", len(o.opt), len(cfg.Metrics))}
	}
	for y, name := range cfg.Policies {
		s, _ := cfg.byName(name)
		o.val[y] = make([]float64, len(cfg.Metrics))
		if name == "fair" || name == "fifo" {
			// FAIR and FIFO ignore the metric: one plan serves every metric.
			// FAIR shares the slack equally, as HFS does with every job in
			// one pool at its default weight 1 (FLEX 4.1's setup); the
			// generated weights weight the penalties only.
			q := p
			q.Metric = cfg.Metrics[0]
			if name == "fair" {
				q.Jobs = append([]solver.Job(nil), p.Jobs...)
				for k := range q.Jobs {
					q.Jobs[k].Weight = 1
				}
			}
			r, err := s.Solve(q)
			if err != nil {
				return outcome{err: fmt.Errorf("policy %s: %w", name, err)}
			}
			for x, m := range cfg.Metrics {
				q := p
				q.Metric = m
				if o.val[y][x], err = solver.Objective(q, r.Plan.Completions); err != nil {
					return outcome{err: fmt.Errorf("policy %s, metric %s: %w", name, m, err)}
				}
			}
			continue
		}
		for x, m := range cfg.Metrics {
			q := p
			q.Metric = m
			q.Options.Effort = cfg.Effort
			sum := 0.0
			seeds := max(1, cfg.SearchSeeds)
			for seed := range seeds {
				q.Options.SearchSeed = uint64(seed)
				r, err := s.Solve(q)
				if err != nil {
					if seeds > 1 {
						return outcome{err: fmt.Errorf("policy %s, metric %s, search seed %d: %w", name, m, seed, err)}
					}
					return outcome{err: fmt.Errorf("policy %s, metric %s: %w", name, m, err)}
				}
				sum += r.Value
			}
			o.val[y][x] = sum / float64(seeds)
		}
	}
	return o
}

// summarise folds the outcomes in index order into rows.
func summarise(cfg StudyConfig, outs []outcome) ([]Row, error) {
	for _, o := range outs {
		if o.err != nil {
			return nil, o.err
		}
	}
	rows := make([]Row, 0, len(cfg.Metrics)*len(cfg.Policies))
	for x, m := range cfg.Metrics {
		for y, pol := range cfg.Policies {
			r := Row{Metric: m, Policy: pol, Avg: math.NaN(), Worst: math.NaN(), WorstInstance: -1}
			sum := 0.0
			for i, o := range outs {
				if !(o.opt[x] > 0) {
					r.Skipped++
					continue
				}
				ratio := o.val[y][x] / o.opt[x]
				sum += ratio
				r.Instances++
				if r.WorstInstance < 0 || ratio > r.Worst {
					r.Worst, r.WorstInstance = ratio, i
				}
			}
			if r.Instances > 0 {
				r.Avg = sum / float64(r.Instances)
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// SweepValues returns the default values of a sweep: slack 5% to 95% in
// steps of 10% (Fig. 5a), and the small-job share 0% to 90% in steps of
// 10% (Fig. 5b; the paper leaves out 100%, a homogeneous workload like 0%).
// It returns nil for an unknown parameter.
func SweepValues(param string) []float64 {
	var out []float64
	switch param {
	case "slack":
		for k := range 10 {
			out = append(out, float64(5+10*k)/100)
		}
	case "small":
		for k := range 10 {
			out = append(out, float64(k)/10)
		}
	}
	return out
}

// RunSweep runs one study per value of param ("slack" or "small"), every
// one from the same seed (so the instances differ only by the parameter),
// and returns their rows value by value. Progress counts instances over
// the whole sweep.
func RunSweep(cfg StudyConfig, seed uint64, param string, values []float64) ([]Row, error) {
	if param != "slack" && param != "small" {
		return nil, fmt.Errorf("unknown sweep parameter %q (want slack or small)", param)
	}
	cfg = cfg.withDefaults()
	total := cfg.Instances * len(values)
	var rows []Row
	for v, val := range values {
		c := cfg
		if param == "slack" {
			c.Slack = val
		} else {
			c.Small = val
		}
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("%s = %v: %w", param, val, err)
		}
		if cfg.Progress != nil {
			base := v * cfg.Instances
			c.Progress = func(done, _ int) { cfg.Progress(base+done, total) }
		}
		rs, err := RunStudy(c, seed)
		if err != nil {
			return nil, fmt.Errorf("%s = %v: %w", param, val, err)
		}
		for _, r := range rs {
			r.Sweep, r.Value = param, val
			rows = append(rows, r)
		}
	}
	return rows, nil
}
