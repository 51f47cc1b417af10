package epochlog

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// Logged names the re-decision of every epoch under the policies the log
// itself names (its policy and phase_policy): the baseline the other
// policies are compared with. Without an objective override it reproduces
// the decisions the server stored, since Decide is deterministic.
const Logged = "logged"

// Options configure a replay.
type Options struct {
	// Policies are the policies to re-decide under, by solver name; each
	// replaces the logged policy of both phases. They must be distinct and
	// must not be Logged.
	Policies []string
	// Objective, when set, replaces every logged objective, the request's
	// and each job's own (so the aggregates cannot clash), in the baseline
	// too: the comparison then isolates the policy.
	Objective penalty.Metric
	// Progress, when set, is called after each decision with the number
	// done and the total.
	Progress func(done, total int)
}

// Report is a replay's outcome.
type Report struct {
	// Objective is the override, "" when the logged objectives were kept.
	Objective string `json:"objective,omitempty"`
	// Policies are Logged and then Options.Policies: the order of every
	// per-policy list below.
	Policies []string `json:"policies"`
	// Epochs lists every epoch in log order.
	Epochs []EpochReport `json:"epochs"`
	// Summary has one entry per policy.
	Summary []Summary `json:"summary"`
	// Gaps lists every run of epochs missing from a cluster's log, in log
	// order (empty for a log without gaps); MissingEpochs counts the
	// epochs they miss in all.
	Gaps          []Gap `json:"gaps"`
	MissingEpochs int64 `json:"missing_epochs"`
	// Last holds the full decisions of the last epoch, one per policy, for
	// charts; nil for an empty log.
	Last []epoch.Decision `json:"-"`
}

// EpochReport is one epoch re-decided under every policy.
type EpochReport struct {
	Line      int              `json:"line"`
	Cluster   string           `json:"cluster"`
	Epoch     int64            `json:"epoch"`
	Now       float64          `json:"now"`
	Decisions []PolicyDecision `json:"decisions"`
}

// PolicyDecision is one policy's decision of one epoch.
type PolicyDecision struct {
	Policy string `json:"policy"`
	// MapObjective and ReduceObjective are the objective values of the
	// phases' plans; nil when the phase had no jobs.
	MapObjective    *float64 `json:"map_objective"`
	ReduceObjective *float64 `json:"reduce_objective"`
	// Differs is true when some job's slots differ from Logged's; AbsDiff
	// sums the absolute differences over jobs and phases.
	Differs bool `json:"differs"`
	AbsDiff int  `json:"abs_diff"`
	// Allocations are every job's slots, in request order.
	Allocations []Allocation `json:"allocations"`
}

// Allocation is one job's slots in both phases.
type Allocation struct {
	ID     string `json:"id"`
	Map    int    `json:"map"`
	Reduce int    `json:"reduce"`
}

// Summary sums one policy's replay up against Logged.
type Summary struct {
	Policy string `json:"policy"`
	// Epochs counts the epochs decided; DifferingEpochs those whose
	// allocations differ from Logged's in any job or phase.
	Epochs          int `json:"epochs"`
	DifferingEpochs int `json:"differing_epochs"`
	// AbsSlotDiff sums the absolute slot differences over every epoch,
	// job and phase.
	AbsSlotDiff int `json:"abs_slot_diff"`
	// Largest is the largest single difference (the first one in log
	// order among equals); nil when nothing differs.
	Largest *Difference `json:"largest"`
	// MeanMapObjective and MeanReduceObjective average the phases'
	// objective values over the epochs where the phase had jobs (nil when
	// none had).
	MeanMapObjective    *float64 `json:"mean_map_objective"`
	MeanReduceObjective *float64 `json:"mean_reduce_objective"`
}

// Difference is one job's slots in one phase of one epoch under a policy,
// against Logged's.
type Difference struct {
	Cluster string `json:"cluster"`
	Epoch   int64  `json:"epoch"`
	Line    int    `json:"line"`
	Job     string `json:"job"`
	Phase   string `json:"phase"`
	// Slots is the policy's slots minus Logged's (Logged's are Logged).
	Slots  int `json:"slots"`
	Logged int `json:"logged"`
}

// Gap is a run of epochs missing from one cluster's log: the epochs
// strictly between After and Before. Replay decides Before from the state
// After left, as the server did.
type Gap struct {
	Cluster string `json:"cluster"`
	// After is the last epoch logged before the gap, Before the first
	// after it; Line is Before's line.
	After  int64 `json:"after"`
	Before int64 `json:"before"`
	Line   int   `json:"line"`
	// Missing is Before - After - 1.
	Missing int64 `json:"missing"`
}

// String names the gap: `cluster "c1": epoch 4 missing (between 3 and 5)`.
func (g Gap) String() string {
	what := fmt.Sprintf("epoch %d missing", g.After+1)
	if g.Missing > 1 {
		what = fmt.Sprintf("epochs %d to %d missing (%d)", g.After+1, g.Before-1, g.Missing)
	}
	return fmt.Sprintf("cluster %q: %s, between epoch %d and epoch %d (line %d)", g.Cluster, what, g.After, g.Before, g.Line)
}

// findGaps lists the gaps of entries, per cluster in log order.
func findGaps(entries []Entry) []Gap {
	last := map[string]int64{}
	gaps := []Gap{}
	for _, e := range entries {
		prev, ok := last[e.Cluster]
		if ok && e.Request.Epoch > prev+1 {
			gaps = append(gaps, Gap{Cluster: e.Cluster, After: prev, Before: e.Request.Epoch, Line: e.Line, Missing: e.Request.Epoch - prev - 1})
		}
		last[e.Cluster] = e.Request.Epoch
	}
	return gaps
}

// ErrOptions marks invalid Options.
var ErrOptions = errors.New("invalid replay options")

// Replay re-decides every entry (as Read returns them) with epoch.Decide,
// first under the logged policies and then under each of opts.Policies,
// carrying each policy's cluster state from epoch to epoch per cluster as
// the server does, across gaps too (the server decides an epoch after a
// gap from the state the last stored epoch left; so does Replay, and the
// report lists the gaps). A replay starts from an empty cluster state, so a log
// that does not start at a cluster's first epoch reproduces OMO's moving
// averages only approximately; everything else is exact.
//
// A request Decide refuses (a *solver.ValidationError, say because the
// objective override needs deadlines the log lacks) is returned as a
// *LineError naming the line and the policy.
func Replay(entries []Entry, opts Options) (Report, error) {
	if err := opts.validate(); err != nil {
		return Report{}, err
	}
	policies := append([]string{Logged}, opts.Policies...)
	rep := Report{Objective: string(opts.Objective), Policies: policies, Epochs: make([]EpochReport, len(entries))}
	states := make([]map[string]epoch.ClusterState, len(policies))
	for p := range states {
		states[p] = map[string]epoch.ClusterState{}
	}
	total, done := len(entries)*len(policies), 0
	for i, e := range entries {
		er := EpochReport{Line: e.Line, Cluster: e.Cluster, Epoch: e.Request.Epoch, Now: e.Request.Now,
			Decisions: make([]PolicyDecision, len(policies))}
		last := make([]epoch.Decision, len(policies))
		for p, pol := range policies {
			req := opts.request(e.Request, pol)
			dec, next, err := epoch.Decide(req, states[p][e.Cluster])
			if err != nil {
				return Report{}, &LineError{Line: e.Line, Err: fmt.Errorf("epoch %d under %s: %w", req.Epoch, pol, err)}
			}
			states[p][e.Cluster] = next
			last[p] = dec
			er.Decisions[p] = policyDecision(pol, dec)
			done++
			if opts.Progress != nil {
				opts.Progress(done, total)
			}
		}
		for p := 1; p < len(policies); p++ {
			d := &er.Decisions[p]
			for k, a := range d.Allocations {
				b := er.Decisions[0].Allocations[k]
				d.AbsDiff += abs(a.Map-b.Map) + abs(a.Reduce-b.Reduce)
			}
			d.Differs = d.AbsDiff > 0
		}
		rep.Epochs[i] = er
		if i == len(entries)-1 {
			rep.Last = last
		}
	}
	rep.Summary = summarise(rep)
	rep.Gaps = findGaps(entries)
	for _, g := range rep.Gaps {
		rep.MissingEpochs += g.Missing
	}
	return rep, nil
}

func (o Options) validate() error {
	seen := map[string]bool{}
	for _, p := range o.Policies {
		if _, ok := solver.ByName(p); !ok || p == "" {
			return fmt.Errorf("%w: unknown policy %q (known: %v)", ErrOptions, p, solver.Names())
		}
		if seen[p] {
			return fmt.Errorf("%w: policy %q named twice", ErrOptions, p)
		}
		seen[p] = true
	}
	if o.Objective != "" {
		if _, ok := penalty.Lookup(o.Objective); !ok {
			return fmt.Errorf("%w: unknown objective %q (known: %v)", ErrOptions, o.Objective, penalty.Names())
		}
	}
	return nil
}

// request is the logged request as policy pol re-decides it. It copies
// what it changes: entries are shared between policies.
func (o Options) request(req epoch.Request, pol string) epoch.Request {
	if pol != Logged {
		req.Policy, req.PhasePolicy = pol, epoch.PhasePolicy{}
	}
	if o.Objective != "" {
		req.Objective = o.Objective
		jobs := slices.Clone(req.Jobs)
		for k := range jobs {
			jobs[k].Objective = ""
		}
		req.Jobs = jobs
	}
	return req
}

func policyDecision(pol string, dec epoch.Decision) PolicyDecision {
	d := PolicyDecision{Policy: pol, Allocations: make([]Allocation, len(dec.Allocations))}
	for k, a := range dec.Allocations {
		d.Allocations[k] = Allocation{ID: a.ID, Map: a.Map, Reduce: a.Reduce}
	}
	d.MapObjective = objective(dec.Phases.Map)
	d.ReduceObjective = objective(dec.Phases.Reduce)
	return d
}

// objective is a phase's objective value, nil when the phase had no jobs
// (its value then means nothing) or is not a finite number.
func objective(res *solver.Result) *float64 {
	if res == nil || len(res.Allocations) == 0 || math.IsNaN(res.Value) || math.IsInf(res.Value, 0) {
		return nil
	}
	v := res.Value
	return &v
}

func summarise(rep Report) []Summary {
	out := make([]Summary, len(rep.Policies))
	for p, pol := range rep.Policies {
		s := Summary{Policy: pol, Epochs: len(rep.Epochs)}
		var mapSum, reduceSum float64
		var mapN, reduceN int
		for _, er := range rep.Epochs {
			d := er.Decisions[p]
			if d.MapObjective != nil {
				mapSum, mapN = mapSum+*d.MapObjective, mapN+1
			}
			if d.ReduceObjective != nil {
				reduceSum, reduceN = reduceSum+*d.ReduceObjective, reduceN+1
			}
			if !d.Differs {
				continue
			}
			s.DifferingEpochs++
			s.AbsSlotDiff += d.AbsDiff
			for k, a := range d.Allocations {
				b := er.Decisions[0].Allocations[k]
				for _, ph := range []struct {
					name   string
					got, b int
				}{{"map", a.Map, b.Map}, {"reduce", a.Reduce, b.Reduce}} {
					if diff := ph.got - ph.b; diff != 0 && (s.Largest == nil || abs(diff) > abs(s.Largest.Slots)) {
						s.Largest = &Difference{Cluster: er.Cluster, Epoch: er.Epoch, Line: er.Line,
							Job: a.ID, Phase: ph.name, Slots: diff, Logged: ph.b}
					}
				}
			}
		}
		s.MeanMapObjective = mean(mapSum, mapN)
		s.MeanReduceObjective = mean(reduceSum, reduceN)
		out[p] = s
	}
	return out
}

func mean(sum float64, n int) *float64 {
	if n == 0 {
		return nil
	}
	m := sum / float64(n)
	return &m
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
