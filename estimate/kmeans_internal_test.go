package estimate

import (
	"math/rand/v2"
	"testing"
)

// TestKMeansNeverRaisesWCSS: on random records, the within-cluster sum of
// squares never rises from one round of Algorithm 6 to the next (section
// 10's property), and every label is its point's nearest centroid at the
// end.
func TestKMeansNeverRaisesWCSS(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		n, dims, k := 1+rng.IntN(40), 2+rng.IntN(2), 1+rng.IntN(10)
		pts := make([][]float64, n)
		for i := range pts {
			pts[i] = make([]float64, dims)
			for d := range pts[i] {
				pts[i][d] = float64(rng.IntN(20)) / 20
			}
		}
		cs, labels, wcss := kmeans(pts, k, 100)
		for r := 1; r < len(wcss); r++ {
			if wcss[r] > wcss[r-1]+1e-12 {
				t.Fatalf("WCSS rose from %v to %v in round %d", wcss[r-1], wcss[r], r)
			}
		}
		for p, l := range labels {
			for c := range cs {
				if sqDist(pts[p], cs[c]) < sqDist(pts[p], cs[l])-1e-12 {
					t.Fatalf("point %v labelled %d, but centroid %d is nearer", pts[p], l, c)
				}
			}
		}
	}
}
