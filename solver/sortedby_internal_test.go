package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortedByMatchesCompare: the radix sort puts the jobs in the order
// of the comparison sort, ties by index, on keys with many ties, both
// zeros, infinities, NaN, negatives and subnormals, across the size at
// which sortedBy switches.
func TestSortedByMatchesCompare(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64, 1, -1, 1.5, 1e-300}
	for _, n := range []int{0, 1, 2, radixSortJobs - 1, radixSortJobs, radixSortJobs + 1, 3000, 20000} {
		for trial := range 4 {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(trial)))
			keys := make([]float64, n)
			for k := range keys {
				switch trial {
				case 0: // a few distinct values: ties everywhere
					keys[k] = float64(rng.IntN(5))
				case 1:
					keys[k] = special[rng.IntN(len(special))]
				case 2:
					keys[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
				case 3: // one shared high part, so most passes are skipped
					keys[k] = 1e6 + float64(rng.IntN(1000))/1024
				}
			}
			key := func(k int) float64 { return keys[k] }
			if got, want := sortedBy(n, key), sortedByCompare(n, key); !slices.Equal(got, want) {
				t.Fatalf("n=%d trial=%d: radix order differs from the comparison sort's", n, trial)
			}
		}
	}
}

func BenchmarkSortedBy(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		rng := rand.New(rand.NewPCG(1, 2))
		keys := make([]float64, n)
		for k := range keys {
			keys[k] = math.Pow(10, 6*rng.Float64())
		}
		key := func(k int) float64 { return keys[k] }
		b.Run(fmt.Sprintf("radix/jobs=%d", n), func(b *testing.B) {
			for b.Loop() {
				sortedBy(n, key)
			}
		})
		b.Run(fmt.Sprintf("compare/jobs=%d", n), func(b *testing.B) {
			for b.Loop() {
				sortedByCompare(n, key)
			}
		})
	}
}
