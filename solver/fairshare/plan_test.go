package fairshare

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/flexd/flexd/solver/mps"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// workTolerance bounds the relative error in the work a plan does for each
// job: CompletionTolerance per interval, accumulated over at most J of them.
const workTolerance = 1e-6

// TestPlanByHand checks a three-job plan derived by hand. S = 10, equal
// weights, all minima 0, now = 100:
//
//	interval 1: shares 10/3 each (C's cap of 4 does not bind); floors 3,3,3
//	  and the spare slot to A (equal fractions and ratios, id first) under
//	  MRv1; under YARN the shares truncate at the upper end to 4,4,4 and two
//	  slots go back, C then B (reverse id): the same 4,3,3. C finishes first,
//	  8/3 s later, when A has 20-32/3 = 28/3 left and B 60-8 = 52.
//	interval 2: A and B get 5 each; A finishes (28/3)/5 = 28/15 s later, at
//	  100+68/15, leaving B 52-28/3 = 128/3.
//	interval 3: B alone gets 10 and finishes (128/3)/10 = 64/15 s later, at
//	  100+132/15 = 108.8, which is total work 88 over 10 slots: no slot idled.
func TestPlanByHand(t *testing.T) {
	jobs := []Job{
		{ID: "A", Max: 10, Weight: 1, Work: 20},
		{ID: "B", Max: 10, Weight: 1, Work: 60},
		{ID: "C", Max: 4, Weight: 1, Work: 8},
	}
	want := mps.Plan{
		Intervals: []mps.Interval{
			{Start: 100, End: 100 + 8.0/3, Changes: []mps.Change{{Job: 0, Slots: 4}, {Job: 1, Slots: 3}, {Job: 2, Slots: 3}}},
			{Start: 100 + 8.0/3, End: 100 + 68.0/15, Changes: []mps.Change{{Job: 0, Slots: 5}, {Job: 1, Slots: 5}, {Job: 2, Slots: 0}}},
			{Start: 100 + 68.0/15, End: 108.8, Changes: []mps.Change{{Job: 0, Slots: 0}, {Job: 1, Slots: 10}}},
		},
		Completions: []float64{100 + 68.0/15, 108.8, 100 + 8.0/3},
		First:       []int{4, 3, 3},
	}
	for _, v := range []Variant{MRv1, YARN} {
		t.Run(string(v), func(t *testing.T) {
			got := Plan(v, jobs, 10, 100)
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("Plan (-want +got):\n%s", diff)
			}
			checkPlan(t, v, jobs, 10, 100, got)
		})
	}
}

func TestPlanEdgeCases(t *testing.T) {
	inf := math.Inf(1)
	cases := map[string]struct {
		jobs  []Job
		total int
		want  mps.Plan
	}{
		"no jobs": {
			jobs: nil, total: 5,
			want: mps.Plan{Completions: []float64{}, First: []int{}},
		},
		"zero work is done at now and holds nothing": {
			jobs:  []Job{{ID: "a", Max: 2, Weight: 1, Work: 0}, {ID: "b", Max: 2, Weight: 1, Work: 4}},
			total: 4,
			want: mps.Plan{
				Intervals:   []mps.Interval{{Start: 0, End: 2, Changes: []mps.Change{{Job: 1, Slots: 2}}}},
				Completions: []float64{0, 2}, First: []int{0, 2},
			},
		},
		"simultaneous completions leave together": {
			jobs:  []Job{{ID: "a", Max: 5, Weight: 1, Work: 10}, {ID: "b", Max: 5, Weight: 1, Work: 10}},
			total: 10,
			want: mps.Plan{
				Intervals:   []mps.Interval{{Start: 0, End: 2, Changes: []mps.Change{{Job: 0, Slots: 5}, {Job: 1, Slots: 5}}}},
				Completions: []float64{2, 2}, First: []int{5, 5},
			},
		},
		"no slots: nothing ever completes": {
			jobs:  []Job{{ID: "a", Max: 1, Weight: 1, Work: 1}},
			total: 0,
			want:  mps.Plan{Completions: []float64{inf}, First: []int{0}},
		},
		"a zero-weight job waits for the slack": {
			jobs:  []Job{{ID: "a", Max: 4, Weight: 0, Work: 4}, {ID: "b", Max: 4, Weight: 1, Work: 8}},
			total: 4,
			want: mps.Plan{
				Intervals: []mps.Interval{
					{Start: 0, End: 2, Changes: []mps.Change{{Job: 1, Slots: 4}}},
					{Start: 2, End: 3, Changes: []mps.Change{{Job: 0, Slots: 4}, {Job: 1, Slots: 0}}},
				},
				Completions: []float64{3, 2}, First: []int{0, 4},
			},
		},
	}
	for name, tc := range cases {
		for _, v := range []Variant{MRv1, YARN} {
			t.Run(name+"/"+string(v), func(t *testing.T) {
				got := Plan(v, tc.jobs, tc.total, 0)
				if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-9), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("Plan (-want +got):\n%s", diff)
				}
				if v == MRv1 {
					sameAll(t, tc.jobs, tc.total, 0)
				}
			})
		}
	}
}

func TestPlanProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jobs, total := genInstance(t)
		v := rapid.SampledFrom([]Variant{MRv1, YARN}).Draw(t, "variant")
		now := float64(rapid.IntRange(-5, 5).Draw(t, "now"))
		p := Plan(v, jobs, total, now)
		checkPlan(t, v, jobs, total, now, p)

		// Deterministic under permutation: each job's slots and completion
		// follow the job.
		perm := rapid.Permutation(indexes(len(jobs))).Draw(t, "perm")
		pj := make([]Job, len(jobs))
		for k, i := range perm {
			pj[k] = jobs[i]
		}
		pp := Plan(v, pj, total, now)
		for k, i := range perm {
			if pp.Completions[k] != p.Completions[i] || pp.First[k] != p.First[i] {
				t.Fatalf("permuted: job %s completes %v with %d slots, unpermuted %v with %d",
					jobs[i].ID, pp.Completions[k], pp.First[k], p.Completions[i], p.First[i])
			}
		}
	})
}

// FuzzPlan feeds arbitrary valid instances to Plan: it must not panic, its
// plan must keep every invariant and be the direct computation's bit for
// bit; so must the faster plans' forms that stress them (every repeated
// weight a class; YARN brackets that hardly last).
func FuzzPlan(f *testing.F) {
	f.Add([]byte{10, 3, 0, 10, 0, 1, 20, 0, 10, 0, 1, 60, 0, 4, 0, 1, 8})
	f.Add([]byte{1, 0})
	f.Add([]byte{255, 255, 7, 200, 9, 3, 1, 0, 0, 0, 0, 0, 255, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		jobs, total, v := decodeInstance(data)
		p := Plan(v, jobs, total, 0)
		checkPlan(t, v, jobs, total, 0, p)
		want := planRecompute(v, jobs, total, 0)
		samePlan(t, want, p)
		if v == YARN {
			samePlan(t, want, planYARNWith(jobs, total, 0, 1e-6))
		} else {
			samePlan(t, want, planEventsWith(jobs, total, 0, 0, nearCompletions, 2))
		}
	})
}

// decodeInstance turns fuzz bytes into a valid instance: S from the first
// two bytes, then five bytes per job (max, min, weight, work, submitted),
// minima cut back so that they fit in S.
func decodeInstance(data []byte) ([]Job, int, Variant) {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := int(data[0])
		data = data[1:]
		return b
	}
	v := MRv1
	var head [2]byte
	head[0], head[1] = byte(next()), byte(next())
	total := 1 + int(binary.BigEndian.Uint16(head[:])%2000)
	if total%2 == 0 {
		v = YARN
	}
	weights := []float64{0, 0.1, 0.25, 0.3, 1, 1, 2, 7.5}
	var jobs []Job
	budget := total
	for len(data) > 0 && len(jobs) < 64 {
		hi := 1 + next()*total/256
		lo := min(next()%(hi+1), budget)
		budget -= lo
		jobs = append(jobs, Job{
			ID:        fmt.Sprintf("j%d", len(jobs)),
			Max:       hi,
			Min:       lo,
			Weight:    weights[next()%len(weights)],
			Work:      float64(1+next()) * 0.75,
			Submitted: float64(next() % 4),
		})
	}
	return jobs, total, v
}

// fataler is what checkPlan needs of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkPlan asserts every invariant of a FAIR plan: intervals contiguous
// from now, capacity respected, min <= slots <= max for live jobs, 0 for
// finished ones, no slack while demand remains, each job's work done exactly
// when it completes, First equal to the first interval.
func checkPlan(tb fataler, v Variant, jobs []Job, total int, now float64, p mps.Plan) {
	tb.Helper()
	n := len(jobs)
	if len(p.Completions) != n || len(p.First) != n {
		tb.Fatalf("plan sized %d completions, %d first for %d jobs", len(p.Completions), len(p.First), n)
	}
	done := make([]float64, n)
	t := now
	var firstSeen bool
	p.Each(func(k int, start, end float64, slots []int) {
		if start != t || !(end > start) {
			tb.Fatalf("interval %d is [%v, %v), expected to start at %v and have positive length", k, start, end, t)
		}
		t = end
		if !firstSeen {
			firstSeen = true
			if diff := cmp.Diff(p.First, slots); diff != "" {
				tb.Fatalf("First differs from interval 0 (-First +interval):\n%s", diff)
			}
		}
		sum, demand := 0, 0
		for j, s := range slots {
			live := jobs[j].Work > 0 && p.Completions[j] > start
			switch {
			case !live && s != 0:
				tb.Fatalf("interval %d: finished job %d holds %d slots", k, j, s)
			case live && (s < jobs[j].Min || s > jobs[j].Max):
				tb.Fatalf("interval %d: job %d holds %d slots outside [%d, %d]", k, j, s, jobs[j].Min, jobs[j].Max)
			}
			if live {
				demand += jobs[j].Max
			}
			sum += s
			done[j] += float64(s) * (end - start)
		}
		if want := min(total, demand); sum != want {
			tb.Fatalf("interval %d: %d slots used, want min(S, live demand) = %d", k, sum, want)
		}
	})
	if !firstSeen {
		for j, s := range p.First {
			if s != 0 {
				tb.Fatalf("no intervals but First[%d] = %d", j, s)
			}
		}
	}
	for j, job := range jobs {
		c := p.Completions[j]
		switch {
		case !(job.Work > 0):
			if c != now {
				tb.Fatalf("job %d without work completes at %v, want now %v", j, c, now)
			}
		case math.IsInf(c, 1):
			if total >= 1 {
				tb.Fatalf("job %d never completes on %d slots (%s)", j, total, v)
			}
		default:
			if math.Abs(done[j]-job.Work) > workTolerance*job.Work {
				tb.Fatalf("job %d: plan does %v slot-seconds of work, want %v", j, done[j], job.Work)
			}
			if c > t || c < now {
				tb.Fatalf("job %d completes at %v, outside [%v, %v]", j, c, now, t)
			}
		}
	}
}
