package tasksim

import (
	"cmp"
	"fmt"
	"math/rand/v2"

	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/sim/cluster"
)

// The scenarios of estimate-and-advice.md sections 3.5 and 4.5.
const (
	ScenarioESAMR   = "esamr"
	ScenarioESPLASH = "esplash"
)

// Scenarios lists the scenario names.
func Scenarios() []string {
	return []string{ScenarioESAMR, ScenarioESPLASH, ScenarioFLEX42, ScenarioSEPB, ScenarioPreschedule}
}

// wordCount and sortJob are ESAMR's two jobs at size gb, with the true
// stage weights of section 3.5: WordCount's are ESAMR Table II's "real"
// columns at 10 GB (nodes 1-3 are type A, 4-5 type B, each with its own
// weights); Sort's are synthetic (D-E11). Weights change with the input
// size, which is ESAMR's argument for clustering (section II): the
// shuffle's share grows with size (R1 x (0.7 + 0.03 GB)) and the map
// stage's a little (M1 x (0.9 + 0.01 GB)), both the tables' values at 10
// GB. 10 maps and 2 reduces per GB (the paper's 100 and 20 at 10 GB).
func esamrProfile(name string, gb int) (Profile, int, int) {
	type w struct {
		m1     float64
		r1, r3 float64
	}
	var table map[string]w
	var mapTime, reduceTime float64
	switch name {
	case "wordcount":
		table = map[string]w{
			"n1": {0.7198, 0.1901, 0.8078}, "n2": {0.7502, 0.1899, 0.8090}, "n3": {0.6109, 0.2079, 0.7814},
			"n4": {0.2078, 0.3699, 0.6284}, "n5": {0.2012, 0.3894, 0.6012},
		}
		mapTime, reduceTime = 40, 60
	default:
		a, b := w{0.45, 0.45, 0.45}, w{0.30, 0.60, 0.30}
		table = map[string]w{"n1": a, "n2": a, "n3": a, "n4": b, "n5": b}
		mapTime, reduceTime = 30, 80
	}
	p := Profile{Name: fmt.Sprintf("%s-%dgb", name, gb), MapTime: mapTime, ReduceTime: reduceTime,
		M1: map[string]float64{}, R: map[string][3]float64{}}
	for node, x := range table {
		r2 := 1 - x.r1 - x.r3
		r1 := x.r1 * (0.7 + 0.03*float64(gb))
		p.M1[node] = x.m1 * (0.9 + 0.01*float64(gb))
		p.R[node] = [3]float64{r1, r2, 1 - r1 - r2}
	}
	return p, 10 * gb, 2 * gb
}

// ESAMRConfig is section 3.5's run: ESAMR's testbed (5 workers, 2 map
// slots and 1 reduce slot each; each node is its own type, as Table II
// gives each its own weights), a warm-up history of 12 jobs (WordCount
// and Sort at 1, 5 and 10 GB, twice), then the measured WordCount 10 GB and
// Sort 10 GB, one job at a time, each stage's time drawn with CV 0.1, and
// two map stragglers and one reduce straggler, as in Figs. 7-8: the
// original attempts of map tasks 41 and 42 and of reduce task 1 (1-based)
// run 2.5 times slower in every stage (section 3.5's "in their current
// stage", taken as: whatever stage they are observed in). The paper's
// map stragglers are its 8th and 9th; here they are tasks that start once
// PFM (20%) of the maps are done, because ESAMR examines a job's maps
// only from then on, and the first waves of 10 slots end before it. detector is the speculation detector (none for a run without
// advice); backups says whether the shim launches the backups advised
// (the errors are measured without, so that every detector sees the same
// run).
//
// basis is speculation.esamr.basis for esamr and late (empty: the
// default, execution_time; D-E13).
func ESAMRConfig(detector string, backups bool, seed uint64, basis string) Config {
	var nodes []Node
	for i := 1; i <= 5; i++ {
		id := fmt.Sprintf("n%d", i)
		nodes = append(nodes, Node{ID: id, Type: id, Level: 1, MapSlots: 2, ReduceSlots: 1})
	}
	var jobs []Job
	add := func(name string, gb int, measure bool) {
		p, maps, reduces := esamrProfile(name, gb)
		j := Job{ID: fmt.Sprintf("j%02d-%s", len(jobs)+1, p.Name), Profile: p, Maps: maps, Reduces: reduces,
			AfterPrevious: len(jobs) > 0, Measure: measure}
		if measure {
			j.Straggle = []Straggle{
				{Phase: estimate.MapPhase, Index: 40, Stage: AllStages, Factor: 2.5},
				{Phase: estimate.MapPhase, Index: 41, Stage: AllStages, Factor: 2.5},
				{Phase: estimate.ReducePhase, Index: 0, Stage: AllStages, Factor: 2.5},
			}
		}
		jobs = append(jobs, j)
	}
	for range 2 {
		for _, gb := range []int{1, 5, 10} {
			add("wordcount", gb, false)
			add("sort", gb, false)
		}
	}
	add("wordcount", 10, true)
	add("sort", 10, true)
	// Reduces start once every map is done: Table II's reduce weights
	// (a shuffle of 19 to 39% of a reduce task's time) are those of
	// shuffles that did not wait for maps; one started at Hadoop's default
	// slowstart of 5% would spend most of its time waiting in its shuffle.
	cfg := Config{Nodes: nodes, Jobs: jobs, Seed: seed, TaskCV: 0.1, NoBackups: !backups, SlowStart: 1}
	if detector != "" && detector != string(estimate.DetectorNone) {
		cfg.Speculation = &httpapi.SpeculationConfig{Detector: detector}
		if basis != "" {
			cfg.Speculation.ESAMR = &httpapi.ESAMRParams{Basis: basis}
		}
	}
	return cfg
}

// The ESPLASH scenarios of section 4.5.
const (
	NoStraggler  = "no_straggler"
	SlowLevel1   = "slow_level1"
	SlowLevel4   = "slow_level4"
	SlowThenDown = "slow_then_down"
)

// The straggler windows, seconds: a node slowed SlowFactor times from
// SlowFrom for 1,000 s (the paper's window, which covers the jobs' tails);
// in SlowThenDown slowed until DownFrom, then down for 600 s (its running
// attempts lost).
const (
	SlowFactor = 10.0
	SlowFrom   = 300.0
	SlowTo     = SlowFrom + 1000
	DownFrom   = 600.0
	DownTo     = DownFrom + 600
)

// ESPLASHScenarios lists them.
func ESPLASHScenarios() []string { return []string{NoStraggler, SlowLevel1, SlowLevel4, SlowThenDown} }

// ESPLASHConfig is section 4.5's run: 8 nodes in 4 levels of 2 with 32,
// 16, 8 and 4 containers (three quarters map slots, a quarter reduce: the
// simulator keeps Hadoop 1's two kinds), task times 4.0, 2.0, 1.2 and 1.0
// times the nominal by level (D-S19); the mixed workload (2 jobs each of 4
// profiles: Terasort, WordCount, Grep, Wordmean; 80 maps and 10 reduces
// each, all submitted at once), CV 0.1. The straggler scenarios slow one
// node SlowFactor (10) times from 300 s for 1,000 s (past the end of the
// run, about 1,000 s: the jobs' tails run on the slowed node), or, in the
// last, slow it from 300 s and take it down from 600 s for 600 s. The
// specification says 3 times; at 3 a level-4 node is still faster than a
// healthy level-1 node, so no detector would see a straggler
// (docs/speculation.md). The shim sends the levels, as the paper's
// testbed configures them (a node's level is its vcore configuration).
func ESPLASHConfig(scenario, detector string, seed uint64) (Config, error) {
	return esplashConfig(scenario, detector, seed, true)
}

// esplashConfig is ESPLASHConfig, with the levels sent to flexd as
// pre-configured (the paper's testbed: a node's level is its vcore
// configuration) or left for flexd to classify.
func esplashConfig(scenario, detector string, seed uint64, configured bool) (Config, error) {
	speeds := []float64{4.0, 2.0, 1.2, 1.0}
	containers := []int{32, 16, 8, 4}
	var nodes []Node
	for l := 1; l <= 4; l++ {
		for k := range 2 {
			c := containers[l-1]
			nodes = append(nodes, Node{ID: fmt.Sprintf("l%d%c", l, 'a'+k), Type: "any", Level: l, ReportLevel: configured,
				MapSlots: c * 3 / 4, ReduceSlots: c / 4, Speed: speeds[l-1]})
		}
	}
	slow := Window{From: SlowFrom, To: SlowTo, Factor: SlowFactor}
	switch scenario {
	case NoStraggler:
	case SlowLevel1:
		nodes[0].Slow = []Window{slow}
	case SlowLevel4:
		nodes[6].Slow = []Window{slow}
	case SlowThenDown:
		nodes[6].Slow = []Window{{From: SlowFrom, To: DownFrom, Factor: SlowFactor}}
		nodes[6].Down = []Window{{From: DownFrom, To: DownTo}}
	default:
		return Config{}, fmt.Errorf("tasksim: unknown ESPLASH scenario %q; one of %v", scenario, ESPLASHScenarios())
	}
	profile := func(name string, mapTime, reduceTime float64, r [3]float64) Profile {
		return Profile{Name: name, MapTime: mapTime, ReduceTime: reduceTime,
			M1: map[string]float64{"any": 0.7}, R: map[string][3]float64{"any": r}}
	}
	profiles := []Profile{
		profile("terasort", 30, 120, [3]float64{0.6, 0.1, 0.3}),
		profile("wordcount", 50, 40, [3]float64{0.3, 0.1, 0.6}),
		profile("grep", 40, 10, [3]float64{0.3, 0.1, 0.6}),
		profile("wordmean", 45, 20, [3]float64{0.3, 0.1, 0.6}),
	}
	var jobs []Job
	for k := range 2 {
		for _, p := range profiles {
			jobs = append(jobs, Job{ID: fmt.Sprintf("%s-%d", p.Name, k+1), Profile: p, Maps: 80, Reduces: 10})
		}
	}
	cfg := Config{Nodes: nodes, Jobs: jobs, Seed: seed, TaskCV: 0.1}
	if detector != "" && detector != string(estimate.DetectorNone) {
		cfg.Speculation = &httpapi.SpeculationConfig{Detector: detector}
	}
	return cfg, nil
}

// ScenarioFLEX42 is FLEX 4.2's cluster workload at task level (issue 11's
// closed loop with task-level estimation error).
const ScenarioFLEX42 = "flex42"

// FLEX42Config is FLEX section 4.2's cluster experiment at task level:
// sim/cluster's FLEX 4.2 jobs (10 jobs of N(10, sigma^2) units of 20 tasks
// per phase, 30 s maps and 60 s reduces, all submitted at once) on 10
// nodes of 4 map and 4 reduce slots, all of speed 1 (so that a phase's
// true work in slot-seconds is defined), the pool minimum (1 - slack) of
// each phase's slots split evenly, Hadoop's slowstart 0.05, each stage's
// time drawn with CV cv. oracle sends flexd the true remaining work;
// otherwise flexd extrapolates it from the task statistics (FLEX 4.2).
func FLEX42Config(policy string, oracle bool, slack, sigma, cv float64, seed uint64) (Config, error) {
	cj, err := cluster.GenerateFLEX42(cluster.FLEX42{Sigma: sigma}, seed)
	if err != nil {
		return Config{}, err
	}
	var nodes []Node
	for i := range 10 {
		nodes = append(nodes, Node{ID: fmt.Sprintf("n%d", i), Type: "any", MapSlots: 4, ReduceSlots: 4})
	}
	var jobs []Job
	for _, j := range cj {
		p := Profile{Name: j.ID, MapTime: j.MapWork / float64(j.MapTasks), ReduceTime: j.ReduceWork / float64(j.ReduceTasks),
			M1: map[string]float64{"any": 0.7}, R: map[string][3]float64{"any": {0.3, 0.1, 0.6}}}
		jobs = append(jobs, Job{ID: j.ID, Profile: p, Maps: j.MapTasks, Reduces: j.ReduceTasks, Arrival: j.Arrival})
	}
	return Config{Nodes: nodes, Jobs: jobs, Seed: seed, TaskCV: cv, Policy: policy, Oracle: oracle,
		MinShare: 1 - slack, Epoch: 10, Step: 0.5}, nil
}

// ScenarioSEPB is DynamicMR's SEPB evaluation (section 5.5).
const ScenarioSEPB = "sepb"

// pumaJobs is DynamicMR's Table 3 (seed 000): the benchmarks of J1-J30.
var pumaJobs = []string{
	"wordcount", "sort", "grep", "invertedindex", "classification", "histogrammovies", "histogramratings", "sequencecount", "selfjoin", "classification",
	"wordcount", "invertedindex", "sequencecount", "selfjoin", "histogrammovies", "sort", "histogramratings", "grep", "invertedindex", "histogramratings",
	"classification", "selfjoin", "grep", "invertedindex", "sequencecount", "sort", "wordcount", "histogramratings", "classification", "sequencecount",
}

// pumaProfile is a synthetic profile per PUMA benchmark (D-B8: the main
// paper's Table 3 has the sizes, the seeds do not): maps, map time,
// reduces, reduce time.
func pumaProfile(name string) (p Profile, maps, reduces int) {
	shape := map[string]struct {
		maps    int
		mapTime float64
		reduces int
		redTime float64
		r1      float64
	}{
		"wordcount":        {60, 40, 10, 60, 0.3},
		"sort":             {40, 30, 10, 90, 0.6},
		"grep":             {50, 25, 2, 20, 0.2},
		"invertedindex":    {60, 45, 10, 70, 0.4},
		"classification":   {40, 60, 4, 30, 0.2},
		"histogrammovies":  {30, 35, 4, 20, 0.2},
		"histogramratings": {30, 40, 4, 20, 0.2},
		"sequencecount":    {60, 50, 10, 60, 0.4},
		"selfjoin":         {40, 35, 10, 50, 0.5},
	}[name]
	p = Profile{Name: name, MapTime: shape.mapTime, ReduceTime: shape.redTime,
		M1: map[string]float64{"any": 0.7}, R: map[string][3]float64{"any": {shape.r1, 0.1, 0.9 - shape.r1}}}
	return p, shape.maps, shape.reduces
}

// SEPBOptions vary section 5.5's run beyond the paper's.
type SEPBOptions struct {
	// Detector is the detector SEPB wraps: "" is late, the paper's.
	Detector string
	// StragglerFactor is how many times slower the straggling 5% of the
	// tasks run: 0 is 3, the specification's.
	StragglerFactor float64
}

// SEPBConfig is section 5.5's run: 9 slaves of 10 map and 2 reduce slots
// (D-B7), the first jobs of DynamicMR's Table 3 (J1-Jn) with synthetic
// PUMA profiles (D-B8), all submitted at once, 5% of the tasks (drawn per
// seed) 3 times slower, LATE as the detector (both as opt varies) with SEPB
// checking jobsChecked of the jobs (SEPB off when negative), Hadoop's fair
// scheduler.
func SEPBConfig(jobs int, jobsChecked float64, seed uint64, opt SEPBOptions) (Config, error) {
	if jobs < 1 || jobs > len(pumaJobs) {
		return Config{}, fmt.Errorf("tasksim: sepb: %d jobs, want 1 to %d", jobs, len(pumaJobs))
	}
	detector := cmp.Or(opt.Detector, string(estimate.Late))
	factor := cmp.Or(opt.StragglerFactor, 3)
	if !(factor >= 1 && factor <= 100) {
		return Config{}, fmt.Errorf("tasksim: sepb: straggler factor %v, want 1 to 100", factor)
	}
	if !validDetector(detector) || detector == string(estimate.DetectorNone) {
		return Config{}, fmt.Errorf("tasksim: sepb: detector %q; one of late, yarn_default, esamr, esplash", detector)
	}
	var nodes []Node
	for i := range 9 {
		nodes = append(nodes, Node{ID: fmt.Sprintf("s%d", i+1), Type: "any", MapSlots: 10, ReduceSlots: 2})
	}
	rng := rand.New(rand.NewPCG(seed, 0x5e9b))
	var js []Job
	for i, name := range pumaJobs[:jobs] {
		p, maps, reduces := pumaProfile(name)
		j := Job{ID: fmt.Sprintf("J%d", i+1), Profile: p, Maps: maps, Reduces: reduces}
		for ph, n := range []int{maps, reduces} {
			for k := range n {
				if rng.Float64() < 0.05 {
					j.Straggle = append(j.Straggle, Straggle{Phase: phaseName(ph), Index: k, Stage: AllStages, Factor: factor})
				}
			}
		}
		js = append(js, j)
	}
	spec := &httpapi.SpeculationConfig{Detector: detector}
	if jobsChecked >= 0 {
		checked := jobsChecked
		spec.SEPB = &httpapi.SEPBParams{Enabled: true, JobsChecked: &checked}
	}
	return Config{Nodes: nodes, Jobs: js, Seed: seed, TaskCV: 0.1, Speculation: spec}, nil
}

// ScenarioPreschedule is DynamicMR's Slot PreScheduling evaluation
// (section 6.5).
const ScenarioPreschedule = "preschedule"

// PrescheduleWorkloads are section 6.5's workloads: a Sort job of 16, 32
// or 160 maps alone (Fig. 7), and J1-J10 of DynamicMR's Table 3 submitted
// together, each in its own pool (Appendix E).
func PrescheduleWorkloads() []string { return []string{"sort-16", "sort-32", "sort-160", "j1-j10"} }

// PrescheduleConfig is section 6.5's run: 9 slaves of 10 map and 2 reduce
// slots (D-B7), the locality model (3 replicas per input block, a
// non-local map 1.3 times slower, the load-balancing cap and delay
// scheduling), Hadoop's fair scheduler, with or without Slot
// PreScheduling's advice followed.
func PrescheduleConfig(workload string, preschedule bool, seed uint64) (Config, error) {
	var nodes []Node
	for i := range 9 {
		nodes = append(nodes, Node{ID: fmt.Sprintf("s%d", i+1), Type: "any", MapSlots: 10, ReduceSlots: 2})
	}
	var jobs []Job
	switch workload {
	case "sort-16", "sort-32", "sort-160":
		var maps int
		fmt.Sscanf(workload, "sort-%d", &maps)
		p, _, _ := pumaProfile("sort")
		jobs = []Job{{ID: "sort", Profile: p, Maps: maps, Reduces: max(1, maps/8)}}
	case "j1-j10":
		for i, name := range pumaJobs[:10] {
			p, maps, reduces := pumaProfile(name)
			jobs = append(jobs, Job{ID: fmt.Sprintf("J%d", i+1), Profile: p, Maps: maps, Reduces: reduces})
		}
	default:
		return Config{}, fmt.Errorf("tasksim: unknown preschedule workload %q; one of %v", workload, PrescheduleWorkloads())
	}
	return Config{Nodes: nodes, Jobs: jobs, Seed: seed, TaskCV: 0.1, Locality: true, Preschedule: preschedule}, nil
}
