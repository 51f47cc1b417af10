// Package tasksim is the task-level closed-loop simulator of
// estimate-and-advice.md section 8: nodes with slots, speeds, slowdowns and
// outages; jobs of map and reduce tasks whose attempts advance through
// Hadoop's stages (map, sort; shuffle, sort, reduce); a Hadoop-like
// assignment layer (the shim's side) that fills free slots in fair-share
// order against flexd's allocations; and flexd itself, called every epoch
// through epoch.Decide with exactly the request a shim would send (the
// HTTP wire form, converted as the server converts it). When the
// speculation advice names backups, the shim launches them: the first
// attempt of a task to finish wins and the other is killed, its run time
// wasted.
//
// sim/cluster is fluid (tasks are divisible); this package is what the
// straggler detectors, SEPB and Slot PreScheduling need: tasks, attempts,
// nodes and placement. It is pure and deterministic: seeded random
// streams, no clock, no I/O. Its scenarios (scenario.go) are those of
// estimate-and-advice.md sections 3.5, 4.5, 5.5, 6.5 and 7.5.
//
// Simplifications, each a decision of this package: time advances in
// fixed steps (Config.Step) with stage ends interpolated inside a step;
// without Config.Locality every node offers its free slots at every step
// to every job (with it: heartbeats, input replicas, Hadoop's
// load-balancing cap and delay scheduling, locality.go); a backup waits
// behind its job's pending tasks, as YARN's application master requests
// it at the maps' priority, and never runs on a node where its task
// already ran (Hadoop's TaskInProgress.hasRunOnMachine); only a task's
// first attempt straggles (the slowness is the attempt's, not the
// task's).
package tasksim

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/httpapi"
)

// Window is a time interval [From, To) with a factor.
type Window struct {
	From, To float64
	// Factor multiplies task times on the node during the window (a
	// slowdown; unused for outages).
	Factor float64
}

func (w Window) holds(t float64) bool { return t >= w.From && t < w.To }

// Node is one worker node.
type Node struct {
	ID string
	// Type selects the true stage weights of the jobs' profiles (ESAMR's
	// node types A and B).
	Type string
	// Level is the node's true performance level (1 the slowest; for
	// reports and placement checks); ReportLevel sends it to flexd as a
	// pre-configured level, otherwise flexd classifies the nodes.
	Level       int
	ReportLevel bool
	MapSlots    int
	ReduceSlots int
	// Speed multiplies every task time on the node (1: nominal; 4: four
	// times slower, ESPLASH's level 1 of D-S19).
	Speed float64
	// Slow lists slowdowns; Down lists outages, during which the node
	// offers no slots and its running attempts are lost.
	Slow []Window
	Down []Window
}

func (n *Node) factor(t float64) float64 {
	f := cmp.Or(n.Speed, 1)
	for _, w := range n.Slow {
		if w.holds(t) {
			f *= w.Factor
		}
	}
	return f
}

func (n *Node) down(t float64) bool {
	for _, w := range n.Down {
		if w.holds(t) {
			return true
		}
	}
	return false
}

// Profile is a job type: its tasks' base durations and true stage
// weights per node type.
type Profile struct {
	Name string
	// MapTime and ReduceTime are the base task durations, seconds on a
	// node of speed 1.
	MapTime, ReduceTime float64
	// M1 is the share of a map task's time in its map stage, by node type
	// (the rest is sort); R the shares of shuffle, sort and reduce.
	M1 map[string]float64
	R  map[string][3]float64
}

// AllStages as a Straggle's Stage slows every stage.
const AllStages = -1

// Straggle makes one task's first attempt slower in one stage.
type Straggle struct {
	// Phase is estimate.MapPhase or estimate.ReducePhase, Index the task
	// (0-based), Stage the stage index (or AllStages), Factor the
	// multiplier.
	Phase  string
	Index  int
	Stage  int
	Factor float64
}

// Job is one job of the workload.
type Job struct {
	ID      string
	Profile Profile
	Maps    int
	Reduces int
	// Arrival is the submission time; with AfterPrevious the job is
	// submitted when the job before it in the list completes.
	Arrival       float64
	AfterPrevious bool
	Straggle      []Straggle
	// Measure asks for the TimeToEnd and weight errors of this job's
	// tasks (ESAMR's section 3.5). Every task the detector examined is
	// measured: the paper shows the first 20 maps, but ESAMR examines a
	// job's maps only once PFM of them are done, which the first 20 of 100
	// never see.
	Measure bool
}

// Config is one run.
type Config struct {
	Nodes []Node
	Jobs  []Job
	// Seed seeds the task-time noise; TaskCV is its coefficient of
	// variation (lognormal per attempt).
	Seed   uint64
	TaskCV float64
	// Epoch is the time between flexd's decisions (default 3 s: the
	// heartbeat scale); Step the simulation's time step (default 0.25 s).
	Epoch, Step float64
	// Speculation is the epoch request's speculation object (nil: no
	// detector); NoBackups keeps the advice from being followed (the
	// detector only watches).
	Speculation *httpapi.SpeculationConfig
	NoBackups   bool
	// Policy is flexd's allocation policy (default fair: Hadoop's).
	Policy string
	// Oracle sends each phase's true remaining work (the nominal time of
	// its pending tasks plus what its running attempts have left, in
	// slot-seconds of a speed-1 node: meaningful on a cluster of speed-1
	// nodes) instead of asking flexd to extrapolate it from the task
	// statistics (FLEX 4.2, the default).
	Oracle bool
	// Elapsed, when flexd estimates, asks for extrapolate_elapsed: the
	// shim also sends each phase's running_elapsed.
	Elapsed bool
	// MinShare is the share of each phase's slots guaranteed as minima,
	// split evenly among the jobs in the phase (FLEX 4.2's pool minimum;
	// default 0).
	MinShare float64
	// SlowStart is the share of a job's maps complete before its reduces
	// may start (default 0.05, Hadoop's).
	SlowStart float64
	// Log keeps every request sent, for Report.Requests (flexd replay).
	Log bool
	// Timeline keeps every attempt's span, for Report.Attempts (the
	// per-node picture).
	Timeline bool
	// MaxTime bounds the run (default 10^6 s).
	MaxTime float64
	// Locality switches the locality model on (locality.go): input
	// replicas, non-local cost, the load-balancing cap and delay
	// scheduling; Preschedule asks flexd for Slot PreScheduling's advice
	// and follows it.
	Locality, Preschedule bool
}

// Cluster is the name the simulated shim posts as.
const Cluster = "tasksim"

func (cfg Config) withDefaults() (Config, error) {
	cfg.Epoch = cmp.Or(cfg.Epoch, 3)
	cfg.Step = cmp.Or(cfg.Step, 0.25)
	cfg.Policy = cmp.Or(cfg.Policy, "fair")
	if cfg.SlowStart == 0 {
		cfg.SlowStart = 0.05
	}
	cfg.MaxTime = cmp.Or(cfg.MaxTime, 1e6)
	if len(cfg.Nodes) == 0 || len(cfg.Jobs) == 0 {
		return cfg, fmt.Errorf("tasksim: a run needs nodes and jobs")
	}
	if !(cfg.Epoch > 0) || !(cfg.Step > 0) || cfg.Step > cfg.Epoch || !(cfg.TaskCV >= 0) || !(cfg.MinShare >= 0 && cfg.MinShare <= 1) {
		return cfg, fmt.Errorf("tasksim: epoch %v, step %v, task CV %v", cfg.Epoch, cfg.Step, cfg.TaskCV)
	}
	var ms, rs int
	for _, n := range cfg.Nodes {
		ms += n.MapSlots
		rs += n.ReduceSlots
	}
	if ms < 1 || rs < 1 {
		return cfg, fmt.Errorf("tasksim: the nodes hold %d map and %d reduce slots; a run needs both", ms, rs)
	}
	for _, j := range cfg.Jobs {
		if j.Maps < 1 || j.Reduces < 0 || !(j.Profile.MapTime > 0) || (j.Reduces > 0 && !(j.Profile.ReduceTime > 0)) {
			return cfg, fmt.Errorf("tasksim: job %q: %d maps, %d reduces, profile %q", j.ID, j.Maps, j.Reduces, j.Profile.Name)
		}
	}
	return cfg, nil
}

// JobOutcome is one job's result.
type JobOutcome struct {
	ID                  string
	Arrival, Completion float64
}

// Speculation counts backup attempts.
type Speculation struct {
	// Created backups were placed; Succeeded finished first; Killed lost
	// to their original (or were lost with their node).
	Created, Succeeded, Killed int
	// WastedSeconds is the run time of killed backups.
	WastedSeconds float64
	// KilledOnSlowerOrSame counts killed backups placed on a node of the
	// same or a lower true level than their original's, or on a node
	// slowed at placement; OnStraggler those placed on a node slowed at
	// placement.
	KilledOnSlowerOrSame, OnStraggler int
	// PlacedSlower counts every backup placed on a node slowed at
	// placement or of a lower true level than its original's node.
	PlacedSlower int
	// KilledSlow counts the attempts SEPB's heuristic killed.
	KilledSlow int
	// ByLevel counts created backups by the true level of their node.
	ByLevel map[int]int
}

// TTEError is a measured job's TimeToEnd error, seconds, per phase.
type TTEError struct {
	// Half is the mean |estimate - truth| at the first epoch after each
	// measured attempt passed half its duration (D-E12); Life the mean
	// over every epoch each ran. N counts the attempts measured.
	MapHalf, ReduceHalf float64
	MapLife, ReduceLife float64
	MapN, ReduceN       int
}

// WeightError is, for one node, the |estimated - true| stage weights a
// detector used for a measured job's tasks there (the last it used),
// against the shares its completed tasks there really spent in each stage:
// M1, R1 and R3.
type WeightError struct {
	Node       string
	M1, R1, R3 float64
	// Seen says which were measured.
	MapSeen, ReduceSeen bool
}

// Report is a run's result.
type Report struct {
	Jobs     []JobOutcome
	Makespan float64
	// MeanResponse averages completion - arrival.
	MeanResponse float64
	Speculation  Speculation
	// Flagged lists, per measured job, the tasks the detector advised a
	// backup for ("job/map/8"), sorted.
	Flagged []string
	// TTE and Weights hold the measured jobs' errors, by job id.
	TTE     map[string]TTEError
	Weights map[string][]WeightError
	// Decisions counts epochs decided; Requests holds them with
	// Config.Log.
	Decisions int
	Requests  []httpapi.EpochRequest
	// Attempts holds every attempt's span with Config.Timeline, in the
	// order they ended.
	Attempts []Span
	// Locality is, with Config.Locality, the share of map attempts that
	// ran on a node holding their input; UnbalancedDegree and
	// UnfairnessDegree are Appendix E's (the nodes' running tasks; each
	// job as its own pool), in every run.
	Locality, UnbalancedDegree, UnfairnessDegree float64
	// Prescheduled counts the map tasks started on PreScheduling's advice.
	Prescheduled int
}

// Span is one attempt of the run: on node Node (an index into
// Config.Nodes) in lane Lane (its map slots first, then its reduce slots),
// from Start to End; Won says it finished its task (the others were
// killed or lost with their node).
type Span struct {
	Node, Lane  int
	Start, End  float64
	Speculative bool
	Won         bool
}

// task and attempt are the run's state.
type task struct {
	job      *jobState
	phase    int // 0 map, 1 reduce
	index    int
	id       string
	attempts []*attempt // live ones
	ran      map[*nodeState]bool
	done     bool
	waiting  *backup
	backups  int
	// nextAttempt numbers the task's attempts (Hadoop's attempt ids):
	// originals and backups alike, a waiting backup's reserved at advice.
	nextAttempt int
	// rerun marks a task whose attempt SEPB's heuristic killed: Hadoop
	// runs killed and failed tasks first.
	rerun bool
	// replicas are the nodes holding a map task's input (Locality).
	replicas []*nodeState
}

type backup struct {
	id       string
	minLevel int
}

type attempt struct {
	id       string
	task     *task
	node     *nodeState
	start    float64
	spec     bool
	stageDur []float64
	stage    int
	inStage  float64
	stageEnd []float64
	// slowAtStart says the node was slowed at placement.
	slowAtStart bool
	// lane is the attempt's slot on its node, in its phase.
	lane int
	// tte holds the detector's TimeToEnd estimates (epoch time, value)
	// of a measured attempt.
	tte []sample
}

type sample struct{ t, v float64 }

type jobState struct {
	spec       *Job
	idx        int
	arrived    bool
	arrival    float64
	completion float64
	tasks      [2][]*task
	doneCount  [2]int
	// durations are the completed tasks' times, per phase (what a shim
	// averages for avg_task_time).
	durations [2][]float64
	// waiting is when delay scheduling first made the job pass an offer
	// (-1: it is not waiting).
	waiting  float64
	alloc    [2]int
	finished bool
}

type nodeState struct {
	spec    *Node
	idx     int
	lanes   [2][]bool // busy slots, per phase
	running [2]int
	level   int // flexd's level for it (ESPLASH), else its reported one
	// nextBeat is the node's next heartbeat (the locality model).
	nextBeat float64
}

type runner struct {
	cfg         Config
	t           float64
	jobs        []*jobState
	nodes       []*nodeState
	byID        map[string]*nodeState
	tasks       map[string]*task
	live        []*attempt
	completed   []httpapi.CompletedTaskState
	finished    []string
	state       epoch.ClusterState
	epoch       int64
	excluded    map[string]bool
	rep         Report
	attemptSeq  int
	rotate      int
	weights     map[string]map[string]*weightSeen
	weightsTrue map[string]map[string]*weightTrue
	// queue holds the tasks with a backup advised, in advice order.
	queue  []*task
	tteAcc map[string]*tteAcc
	// Appendix E's integrals, and the locality counts (Locality).
	unbalanced, unfair, measured float64
	localMaps, maps              int
}

// Run simulates cfg.
func Run(cfg Config) (Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Report{}, err
	}
	r := &runner{
		cfg:  cfg,
		byID: map[string]*nodeState{}, tasks: map[string]*task{}, excluded: map[string]bool{},
		weights: map[string]map[string]*weightSeen{}, weightsTrue: map[string]map[string]*weightTrue{},
		tteAcc: map[string]*tteAcc{},
	}
	r.rep.Speculation.ByLevel = map[int]int{}
	r.rep.TTE = map[string]TTEError{}
	r.rep.Weights = map[string][]WeightError{}
	for i := range cfg.Nodes {
		n := &nodeState{spec: &cfg.Nodes[i], idx: i,
			lanes: [2][]bool{make([]bool, cfg.Nodes[i].MapSlots), make([]bool, cfg.Nodes[i].ReduceSlots)}}
		if n.spec.ReportLevel {
			n.level = n.spec.Level
		}
		r.nodes = append(r.nodes, n)
		r.byID[n.spec.ID] = n
	}
	for i := range cfg.Jobs {
		j := &jobState{spec: &cfg.Jobs[i], idx: i, completion: -1, waiting: -1}
		for ph, n := range [2]int{j.spec.Maps, j.spec.Reduces} {
			for k := range n {
				t := &task{job: j, phase: ph, index: k, id: fmt.Sprintf("%s_%s_%06d", j.spec.ID, "mr"[ph:ph+1], k), ran: map[*nodeState]bool{}}
				j.tasks[ph] = append(j.tasks[ph], t)
				r.tasks[t.id] = t
			}
		}
		r.jobs = append(r.jobs, j)
	}
	if cfg.Locality {
		r.placeBlocks()
		for i, n := range r.nodes {
			n.nextBeat = Heartbeat * float64(i) / float64(len(r.nodes))
		}
	}
	if err := r.loop(); err != nil {
		return Report{}, err
	}
	r.finish()
	return r.rep, nil
}

func (r *runner) loop() error {
	nextEpoch := 0.0
	for !r.allDone() {
		if r.t > r.cfg.MaxTime {
			return fmt.Errorf("tasksim: not done after %v s", r.cfg.MaxTime)
		}
		r.arrive()
		r.outages()
		if r.t >= nextEpoch-1e-9 {
			if err := r.decide(); err != nil {
				return err
			}
			nextEpoch += r.cfg.Epoch
		}
		r.assign()
		r.advance()
		r.t += r.cfg.Step
	}
	return nil
}

func (r *runner) allDone() bool {
	for _, j := range r.jobs {
		if !j.finished {
			return false
		}
	}
	return true
}

func (r *runner) arrive() {
	for i, j := range r.jobs {
		if j.arrived {
			continue
		}
		ready := r.t >= j.spec.Arrival
		if j.spec.AfterPrevious && i > 0 {
			ready = r.jobs[i-1].finished
		}
		if ready {
			j.arrived, j.arrival = true, r.t
		}
	}
}

// outages kills the attempts of nodes that are down: their tasks go back
// to pending unless another attempt runs.
func (r *runner) outages() {
	for _, a := range slices.Clone(r.live) {
		if a.node.spec.down(r.t) {
			r.kill(a)
		}
	}
}

// end frees a's slot and, with Config.Timeline, records its span.
func (r *runner) end(a *attempt, at float64, won bool) {
	a.node.running[a.task.phase]--
	a.node.lanes[a.task.phase][a.lane] = false
	if r.cfg.Timeline {
		lane := a.lane
		if a.task.phase == 1 {
			lane += a.node.spec.MapSlots
		}
		r.rep.Attempts = append(r.rep.Attempts, Span{Node: a.node.idx, Lane: lane, Start: a.start, End: at, Speculative: a.spec, Won: won})
	}
}

// kill ends a live attempt without success.
func (r *runner) kill(a *attempt) {
	r.end(a, r.t, false)
	a.task.attempts = slices.DeleteFunc(a.task.attempts, func(x *attempt) bool { return x == a })
	r.live = slices.DeleteFunc(r.live, func(x *attempt) bool { return x == a })
	if len(a.task.attempts) == 0 {
		// The task is pending again: a backup waiting for it has nothing
		// left to race.
		a.task.waiting = nil
	}
	if a.spec {
		s := &r.rep.Speculation
		s.Killed++
		s.WastedSeconds += r.t - a.start
	}
}

// pending reports whether task t waits for a slot.
func (t *task) pending() bool { return !t.done && len(t.attempts) == 0 }

func (j *jobState) running(ph int) (n int) {
	for _, t := range j.tasks[ph] {
		if !t.done && len(t.attempts) > 0 {
			n++
		}
	}
	return n
}

func (j *jobState) pendingCount(ph int) (n int) {
	for _, t := range j.tasks[ph] {
		if t.pending() {
			n++
		}
	}
	return n
}

func (j *jobState) reduceEligible(slowStart float64) bool {
	return float64(j.doneCount[0]) >= slowStart*float64(j.spec.Maps)
}

// assign fills free slots as YARN's MapReduce application master does: a
// backup attempt is requested at the same priority as the job's other
// maps (RMContainerAllocator: PRIORITY_MAP unless an earlier attempt
// failed), so it waits behind the job's pending tasks; jobs take turns in
// fair-share order against flexd's allocations (the most under-allocated
// first), any job with pending work getting what is left (the fair
// scheduler is work-conserving). Nodes offer their slots in a rotating
// order (where the next free container happens to be); a backup ESPLASH
// advised goes to the highest eligible level instead (D-S18).
func (r *runner) assign() {
	n := len(r.nodes)
	r.rotate = (r.rotate + 1) % n
	for k := range n {
		node := r.nodes[(k+r.rotate)%n]
		if node.spec.down(r.t) || !r.beats(node) {
			continue
		}
		for ph := range 2 {
			for node.free(ph) > 0 {
				if !r.placeTask(node, ph) {
					break
				}
			}
		}
	}
}

func (n *nodeState) free(ph int) int {
	return []int{n.spec.MapSlots, n.spec.ReduceSlots}[ph] - n.running[ph]
}

// mayHost reports whether node may run a backup of t now: up, a free slot,
// not excluded, at or above the backup's minimum level, and not where the
// task already ran (Hadoop's TaskInProgress.hasRunOnMachine).
func (r *runner) mayHost(node *nodeState, t *task) bool {
	return !node.spec.down(r.t) && node.free(t.phase) > 0 && !r.excluded[node.spec.ID] &&
		!t.ran[node] && node.level >= t.waiting.minLevel
}

// backupFor returns the first of job j's waiting backups in phase ph that
// can run now, and where: on node when it may host it, or, with ESPLASH's
// advice, on the highest level that may (D-S18).
func (r *runner) backupFor(j *jobState, node *nodeState, ph int) (*task, *nodeState) {
	if r.cfg.NoBackups {
		return nil, nil
	}
	byLevel := r.cfg.Speculation != nil && r.cfg.Speculation.Detector == string(estimate.ESPLASH)
	for _, t := range r.queue {
		if t.job != j || t.phase != ph || t.waiting == nil || t.done || len(t.attempts) == 0 {
			continue
		}
		if !byLevel {
			if r.mayHost(node, t) {
				return t, node
			}
			continue
		}
		var best *nodeState
		for _, cand := range r.nodes {
			if r.mayHost(cand, t) && (best == nil || cand.level > best.level) {
				best = cand
			}
		}
		if best != nil {
			return t, best
		}
	}
	return nil, nil
}

// placeTask starts one of the next job's pending tasks on node, or its
// backup (on node or, for ESPLASH, where backupFor says), and reports
// whether it started anything.
func (r *runner) placeTask(node *nodeState, ph int) bool {
	type cand struct {
		j      *jobState
		backup *task
		where  *nodeState
	}
	var cands []cand
	for _, j := range r.jobs {
		if !j.arrived || j.finished || (ph == 1 && !j.reduceEligible(r.cfg.SlowStart)) {
			continue
		}
		if j.pendingCount(ph) > 0 {
			cands = append(cands, cand{j: j})
		} else if b, where := r.backupFor(j, node, ph); b != nil {
			cands = append(cands, cand{j: j, backup: b, where: where})
		}
	}
	if len(cands) == 0 {
		return false
	}
	// D-G1: deficit = allocated - running, largest first; ties by
	// submission, then id.
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.j.alloc[ph]-b.j.running(ph), a.j.alloc[ph]-a.j.running(ph)),
			cmp.Compare(a.j.arrival, b.j.arrival), cmp.Compare(a.j.spec.ID, b.j.spec.ID))
	})
	c := cands[0]
	if c.backup != nil {
		r.start(c.backup, c.where, true)
		return true
	}
	var first *task
	if r.cfg.Locality && ph == 0 {
		if node.running[0] >= r.mapCap(node) {
			return false // above the load-balancing line
		}
		// Delay scheduling: the first job in fair-share order with a
		// map to run here (local, or after its wait) gets the slot.
		for _, cd := range cands {
			if cd.backup != nil {
				r.start(cd.backup, cd.where, true)
				return true
			}
			if t := r.pickMap(cd.j, node); t != nil {
				t.rerun = false
				r.start(t, node, false)
				return true
			}
		}
		return false
	}
	for _, t := range c.j.tasks[ph] {
		if t.pending() && (first == nil || t.rerun && !first.rerun) {
			first = t
		}
	}
	if first == nil {
		return false
	}
	first.rerun = false
	r.start(first, node, false)
	return true
}

// start places an attempt of t on node.
func (r *runner) start(t *task, node *nodeState, spec bool) {
	p := t.job.spec.Profile
	base := p.MapTime
	shares := []float64{p.M1[node.spec.Type], 1 - p.M1[node.spec.Type]}
	if t.phase == 1 {
		base = p.ReduceTime
		w := p.R[node.spec.Type]
		shares = w[:]
	}
	id := fmt.Sprintf("attempt_%s_%d", t.id, t.nextAttempt)
	if spec {
		// The backup keeps the id the shim reported it under while waiting.
		id = t.waiting.id
	}
	// Each stage's time is drawn on its own, so that an attempt's stage
	// shares scatter around the node's (as the ESAMR paper's per-task
	// weights do) and its total time varies. The draws come from a stream
	// of the attempt's own (common random numbers): an attempt takes the
	// same time in every run of the seed, whichever detector or policy
	// ran before it, so that two runs differ by their decisions, not by
	// the order in which they consumed one stream.
	dur := make([]float64, len(shares))
	noise := attemptNoise(r.cfg.Seed, id)
	for i, w := range shares {
		dur[i] = base * w
		if cv := r.cfg.TaskCV; cv > 0 {
			s2 := math.Log1p(cv * cv)
			dur[i] *= math.Exp(-s2/2 + math.Sqrt(s2)*noise.NormFloat64())
		}
	}
	if r.cfg.Locality && t.phase == 0 {
		if t.localTo(node) {
			r.localMaps++
		} else {
			for i := range dur {
				dur[i] *= NonLocalFactor
			}
		}
		r.maps++
	}
	if !spec && t.nextAttempt == 0 {
		// Only a task's first attempt straggles: the slowness is the
		// attempt's (a hiccup where it ran), not the task's, so a rerun or
		// a backup runs at the usual speed.
		for _, s := range t.job.spec.Straggle {
			if s.Phase == estimate.MapPhase && t.phase == 0 || s.Phase == estimate.ReducePhase && t.phase == 1 {
				for i := range dur {
					if s.Index == t.index && (s.Stage == AllStages || s.Stage == i) {
						dur[i] *= s.Factor
					}
				}
			}
		}
	}
	if spec {
		t.backups++
		t.waiting = nil
	} else {
		t.nextAttempt++
	}
	if spec {
		s := &r.rep.Speculation
		s.Created++
		s.ByLevel[node.spec.Level]++
		for _, o := range t.attempts {
			if !o.spec && (node.spec.Level < o.node.spec.Level || node.spec.factor(r.t) > cmp.Or(node.spec.Speed, 1)) {
				s.PlacedSlower++
			}
		}
	}
	a := &attempt{
		id: id, task: t, node: node, start: r.t, spec: spec,
		stageDur: dur, stageEnd: make([]float64, len(dur)), slowAtStart: node.spec.factor(r.t) > cmp.Or(node.spec.Speed, 1),
	}
	t.attempts = append(t.attempts, a)
	t.ran[node] = true
	node.running[t.phase]++
	a.lane = slices.Index(node.lanes[t.phase], false)
	node.lanes[t.phase][a.lane] = true
	r.live = append(r.live, a)
}

// advance moves every live attempt on by one step and completes those
// that finish.
func (r *runner) advance() {
	dt := r.cfg.Step
	r.measureLoad(dt)
	var done []*attempt
	for _, a := range r.live {
		rate := 1 / a.node.spec.factor(r.t)
		left := dt * rate // nominal seconds this step
		used := 0.0
		for left > 1e-12 && a.stage < len(a.stageDur) {
			room := a.stageDur[a.stage] - a.inStage
			if a.task.phase == 1 && a.stage == 0 {
				// The shuffle copies map output as it appears.
				j := a.task.job
				frac := float64(j.doneCount[0]) / float64(j.spec.Maps)
				room = math.Min(room, a.stageDur[0]*frac-a.inStage)
				if room <= 1e-12 {
					break
				}
			}
			use := math.Min(left, room)
			a.inStage += use
			left -= use
			used += use
			if a.inStage >= a.stageDur[a.stage]-1e-12 {
				a.stageEnd[a.stage] = r.t + used/rate
				a.stage++
				a.inStage = 0
			}
		}
		if a.stage == len(a.stageDur) {
			done = append(done, a)
		}
	}
	for _, a := range done {
		if a.task.done {
			continue // its twin finished in the same step
		}
		r.complete(a)
	}
}

// complete records a's success, kills its task's other attempts, and
// completes the job when it was its last task.
func (r *runner) complete(a *attempt) {
	t := a.task
	finish := a.stageEnd[len(a.stageEnd)-1]
	r.live = slices.DeleteFunc(r.live, func(x *attempt) bool { return x == a })
	r.end(a, finish, true)
	t.attempts = slices.DeleteFunc(t.attempts, func(x *attempt) bool { return x == a })
	for _, other := range slices.Clone(t.attempts) {
		if other.spec {
			s := &r.rep.Speculation
			orig := r.original(t, a)
			if other.slowAtStart || (orig != nil && other.node.spec.Level <= orig.node.spec.Level) {
				s.KilledOnSlowerOrSame++
			}
			if other.slowAtStart {
				s.OnStraggler++
			}
		}
		r.kill(other)
	}
	t.done, t.waiting = true, nil
	t.job.durations[t.phase] = append(t.job.durations[t.phase], finish-a.start)
	if a.spec {
		r.rep.Speculation.Succeeded++
	}
	times := make([]float64, len(a.stageEnd))
	prev := a.start
	for i, e := range a.stageEnd {
		times[i] = e - prev
		prev = e
	}
	r.completed = append(r.completed, httpapi.CompletedTaskState{
		Attempt: a.id, Task: t.id, Job: t.job.spec.ID, Phase: phaseName(t.phase), Node: a.node.spec.ID,
		Start: a.start, Finish: finish, StageTimes: times, Speculative: a.spec,
	})
	r.measureDone(a, finish)
	j := t.job
	j.doneCount[t.phase]++
	if j.doneCount[0] == j.spec.Maps && j.doneCount[1] == j.spec.Reduces {
		j.finished, j.completion = true, finish
		r.finished = append(r.finished, j.spec.ID)
	}
}

// original is the non-speculative attempt of t that a killed backup raced
// (the winner when it is not the backup itself).
func (r *runner) original(t *task, winner *attempt) *attempt {
	if !winner.spec {
		return winner
	}
	for _, x := range t.attempts {
		if !x.spec {
			return x
		}
	}
	return nil
}

func phaseName(ph int) string {
	if ph == 0 {
		return estimate.MapPhase
	}
	return estimate.ReducePhase
}

// stageNames are each phase's stages, as the wire names them.
var stageNames = [2][]string{
	{estimate.StageMap, estimate.StageSort},
	{estimate.StageShuffle, estimate.StageSort, estimate.StageReduce},
}

// progress is Hadoop's reported progress of a: a map task's map stage
// weighs 0.667 and its sort 0.333 (a map-only job's map stage all of
// it); a reduce task's stages a third each (MapTask.run, ReduceTask).
func (a *attempt) progress() (overall float64, stage string, sub float64) {
	s := min(a.stage, len(a.stageDur)-1)
	sub = 0
	if a.stage < len(a.stageDur) && a.stageDur[s] > 0 {
		sub = math.Min(1, a.inStage/a.stageDur[s])
	} else if a.stage >= len(a.stageDur) {
		sub = 1
	}
	if a.task.phase == 0 {
		if a.task.job.spec.Reduces == 0 {
			if s == 0 {
				return sub, estimate.StageMap, sub
			}
			return 1, estimate.StageSort, sub
		}
		if s == 0 {
			return 0.667 * sub, estimate.StageMap, sub
		}
		return 0.667 + 0.333*sub, estimate.StageSort, sub
	}
	return (float64(s) + sub) / 3, stageNames[1][s], sub
}

// attemptNoise is the random stream of the attempt with this id in a run
// of seed: the same in every run of the seed.
func attemptNoise(seed uint64, id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id)) // a hash.Hash never fails to write
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
