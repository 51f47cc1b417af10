package mps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchInput is a fixed-seed instance with n jobs on 10n slots: minima 0..9
// (a quarter of them 0), maxima mostly 1..100 with one in ten at S, work
// log-uniform over six decades, and a random priority order.
func benchInput(n int) (Input, []int) {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	in := Input{
		Slots: 10 * n,
		Now:   1.7e9,
		Min:   make([]int, n),
		Max:   make([]int, n),
		Work:  make([]float64, n),
	}
	for j := range n {
		if r.IntN(10) == 0 {
			in.Max[j] = in.Slots
		} else {
			in.Max[j] = 1 + r.IntN(min(100, in.Slots))
		}
		if r.IntN(4) != 0 {
			in.Min[j] = min(r.IntN(10), in.Max[j]) // sum(Min) <= 9n <= S
		}
		in.Work[j] = math.Pow(10, 6*r.Float64())
	}
	return in, r.Perm(n)
}

var benchSizes = []int{10, 1000, 10000, 100000}

// BenchmarkPack measures the full plan (intervals and all).
func BenchmarkPack(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			in, order := benchInput(n)
			b.ReportAllocs()
			for b.Loop() {
				Pack(in, order)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/job")
		})
	}
}

// BenchmarkCompletions measures the scoring fast path with a warm Packer.
func BenchmarkCompletions(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("jobs=%d", n), func(b *testing.B) {
			in, order := benchInput(n)
			out := make([]float64, n)
			var p Packer
			p.Completions(in, order, out)
			b.ReportAllocs()
			for b.Loop() {
				p.Completions(in, order, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/job")
		})
	}
}
