package rap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var benchSizes = []struct{ jobs, slots int }{{1000, 10_000}, {10_000, 100_000}}

// flowFixture is a weighted-response-time RAP (F = w (W/s - r), FLEX Fig.
// 1a) with minima 0 or 1 and maxima up to S, so caps bind for some jobs.
func flowFixture(jobs, slots int, inverse bool) Problem {
	rng := rand.New(rand.NewPCG(uint64(jobs), uint64(slots)))
	js := make([]job, jobs)
	mins, maxs := make([]int, jobs), make([]int, jobs)
	for j := range js {
		js[j] = job{w: rng.Float64(), work: float64(1 + rng.IntN(1000*slots/jobs)), r: -rng.Float64() * 100}
		mins[j] = rng.IntN(2)
		maxs[j] = max(1, rng.IntN(slots))
	}
	return problemOf(families["weighted response time"], js, slots, mins, maxs, inverse)
}

func BenchmarkThreshold(b *testing.B) {
	for _, sz := range benchSizes {
		for _, inv := range []bool{false, true} {
			b.Run(fmt.Sprintf("jobs=%d/slots=%d/inverse=%v", sz.jobs, sz.slots, inv), func(b *testing.B) {
				p := flowFixture(sz.jobs, sz.slots, inv)
				want := SumOf(p, Greedy(p))
				var s []int
				for b.Loop() {
					s = Threshold(p)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sz.jobs), "ns/job")
				b.ReportMetric(SumOf(p, s)/want, "objective/greedy")
			})
		}
	}
}

func BenchmarkGreedy(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("jobs=%d/slots=%d", sz.jobs, sz.slots), func(b *testing.B) {
			p := flowFixture(sz.jobs, sz.slots, false)
			for b.Loop() {
				Greedy(p)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sz.jobs), "ns/job")
		})
	}
}

// stepFixture lists 1-3 choices per job: the SLA-like staircase of a job
// with deadlines 1, 2, 4 (W/d slots meet deadline d) and random step
// penalties, minima 0 or 1; the extra slots wanted total about 2S, so the
// budget binds.
func stepFixture(jobs, slots int) [][]Choice {
	rng := rand.New(rand.NewPCG(uint64(jobs), 3))
	out := make([][]Choice, jobs)
	for j := range out {
		w := 1 + rng.Float64()
		work := float64(1 + rng.IntN(8*slots/jobs))
		lo := rng.IntN(2)
		levels := 1 + rng.IntN(3)
		out[j] = []Choice{{lo, w * float64(levels)}}
		for l, d := range []float64{4, 2, 1}[3-levels:] {
			need := int(math.Ceil(work / d))
			if need > out[j][len(out[j])-1].Slots {
				out[j] = append(out[j], Choice{need, w * float64(levels-1-l)})
			}
		}
	}
	return out
}

func BenchmarkKnapsack(b *testing.B) {
	for _, sz := range []struct{ jobs, slots int }{{1000, 10_000}} {
		b.Run(fmt.Sprintf("jobs=%d/slots=%d", sz.jobs, sz.slots), func(b *testing.B) {
			choices := stepFixture(sz.jobs, sz.slots)
			var cells int
			for b.Loop() {
				_, cells, _ = Knapsack(sz.slots, choices, 0)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sz.jobs), "ns/job")
			b.ReportMetric(float64(cells), "cells")
		})
	}
}

func BenchmarkMinimax(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("jobs=%d/slots=%d", sz.jobs, sz.slots), func(b *testing.B) {
			p := flowFixture(sz.jobs, sz.slots, false)
			for b.Loop() {
				Minimax(p)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sz.jobs), "ns/job")
		})
	}
}
