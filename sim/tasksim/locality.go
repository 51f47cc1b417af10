package tasksim

import (
	"math"
	"math/rand/v2"
	"slices"
)

// The locality model (estimate-and-advice.md section 6.5), on with
// Config.Locality: every map task's input block has 3 replicas on
// distinct nodes drawn per seed (HDFS's placement, rack-unaware); a map
// attempt off its replicas runs NonLocalFactor times longer (D-P8); and
// nodes offer their free slots at their heartbeats (every Heartbeat
// seconds, staggered); and the shim's fair scheduler applies Hadoop's
// load-balancing cap (CapBasedLoadManager: a node runs at most
// ceil(C min(LF, 1)) maps, LF the cluster's map demand over its map
// slots) and delay scheduling (a job with no input on the offered node is
// skipped for up to LocalityDelay seconds before it may run a map
// anywhere; Hadoop's mapred.fairscheduler.locality.delay, 1.5 heartbeats
// by default).

// Replicas is the number of nodes holding each map task's input block.
const Replicas = 3

// NonLocalFactor is how much longer a map attempt runs off its input's
// nodes (D-P8: the paper measures locality, not its cost).
const NonLocalFactor = 1.3

// Heartbeat is a node's heartbeat interval, seconds, in the locality
// model; LocalityDelay how long delay scheduling lets a job wait for a
// node with its input.
const (
	Heartbeat     = 3.0
	LocalityDelay = 1.5 * Heartbeat
)

// placeBlocks draws each map task's replica nodes.
func (r *runner) placeBlocks() {
	rng := rand.New(rand.NewPCG(r.cfg.Seed, 0xb10c))
	n := len(r.nodes)
	for _, j := range r.jobs {
		for _, t := range j.tasks[0] {
			perm := rng.Perm(n)
			for _, k := range perm[:min(Replicas, n)] {
				t.replicas = append(t.replicas, r.nodes[k])
			}
		}
	}
}

func (t *task) localTo(n *nodeState) bool { return slices.Contains(t.replicas, n) }

// mapCap is the load-balancing cap of node n: ceil(C min(LF, 1)).
func (r *runner) mapCap(n *nodeState) int {
	demand, capacity := 0, 0
	for _, j := range r.jobs {
		if j.arrived && !j.finished {
			demand += j.pendingCount(0) + j.running(0)
		}
	}
	for _, m := range r.nodes {
		if !m.spec.down(r.t) {
			capacity += m.spec.MapSlots
		}
	}
	if capacity == 0 {
		return 0
	}
	lf := math.Min(float64(demand)/float64(capacity), 1)
	return int(math.Ceil(float64(n.spec.MapSlots) * lf))
}

// localPending counts, per node id, the job's pending maps with a replica
// there (what a shim sends as map.local_pending).
func (j *jobState) localPending() map[string]int {
	out := map[string]int{}
	for _, t := range j.tasks[0] {
		if t.pending() {
			for _, n := range t.replicas {
				out[n.spec.ID]++
			}
		}
	}
	return out
}

// pickMap chooses the map task job j runs on node: a pending one with its
// input there, else, once j has waited LocalityDelay, any pending one;
// nil means j skips this offer (delay scheduling).
func (r *runner) pickMap(j *jobState, node *nodeState) *task {
	var local, other *task
	for _, t := range j.tasks[0] {
		if !t.pending() {
			continue
		}
		// A task rerun after a kill goes first, as Hadoop runs failed and
		// killed tasks first.
		if t.localTo(node) {
			if local == nil || t.rerun && !local.rerun {
				local = t
			}
		} else if other == nil || t.rerun && !other.rerun {
			other = t
		}
	}
	if local != nil {
		j.waiting = -1
		return local
	}
	if other == nil {
		return nil
	}
	if j.waiting < 0 {
		j.waiting = r.t
	}
	if r.t-j.waiting >= LocalityDelay {
		return other
	}
	return nil
}

// beats reports whether node offers its slots now: always without the
// locality model; with it, at its heartbeats (staggered over the
// interval).
func (r *runner) beats(n *nodeState) bool {
	if !r.cfg.Locality {
		return true
	}
	if r.t+1e-9 < n.nextBeat {
		return false
	}
	for n.nextBeat <= r.t+1e-9 {
		n.nextBeat += Heartbeat
	}
	return true
}

// measureLoad accumulates Appendix E's integrands over one step: the
// squared deviation of the nodes' running tasks from their mean, and of
// the live jobs' (each its own pool) running tasks from theirs.
func (r *runner) measureLoad(dt float64) {
	var loads, shares []float64
	for _, n := range r.nodes {
		loads = append(loads, float64(n.running[0]+n.running[1]))
	}
	for _, j := range r.jobs {
		if j.arrived && !j.finished {
			shares = append(shares, float64(j.running(0)+j.running(1)))
		}
	}
	r.unbalanced += dt * SquaredDeviation(loads)
	r.unfair += dt * SquaredDeviation(shares)
	r.measured += dt
}

// SquaredDeviation is sum (x_i - mean)^2, the integrand of Appendix E's
// UnbalancedDegree (node loads) and UnfairnessDegree (pool shares).
func SquaredDeviation(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	mean := 0.0
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	s := 0.0
	for _, x := range xs {
		s += (x - mean) * (x - mean)
	}
	return s
}

// Step is one interval of a load timeline: how long it lasts and each
// node's (or pool's) load during it.
type Step struct {
	Duration float64
	Loads    []float64
}

// Degree is Appendix E's degree over a timeline: the time integral of
// SquaredDeviation divided by the timeline's length.
func Degree(steps []Step) float64 {
	num, den := 0.0, 0.0
	for _, s := range steps {
		num += s.Duration * SquaredDeviation(s.Loads)
		den += s.Duration
	}
	if den == 0 {
		return 0
	}
	return num / den
}
