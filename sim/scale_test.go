package sim

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// TestFlexAtScaleAgainstReferences locks FLEX's quality past the paper's
// J = 10 against the committed best-known references
// (testdata/references, made by `flexd simulate study --reference search
// --reference-effort 10`): on the FLEX 4.1 base case at S = 10 J, every
// metric's average ratio stays within avgBound of the reference and every
// instance within worstBound. Before the search at scale (solver/search.go)
// the average was 1.33 on avg_tardiness and 1.64 on weighted_tardiness at
// J = 50; docs/solver-at-scale.md has the current figures.
func TestFlexAtScaleAgainstReferences(t *testing.T) {
	for _, c := range []struct {
		jobs                 int
		avgBound, worstBound float64
	}{
		{20, 1.06, 1.30},
		{50, 1.10, 1.50},
	} {
		w := Workload{Jobs: c.jobs, Slots: 10 * c.jobs, Small: 0.8, Slack: 0.75}
		path := filepath.Join("testdata", "references", ReferenceFile(w, 1, 10))
		refs, err := LoadReferenceSet(path, w, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs.Values) == 0 {
			t.Fatalf("%s: no references", path)
		}
		for _, info := range penalty.All() {
			m := info.Name
			sum, n, worst := 0.0, 0, 0.0
			for i := range len(refs.Values) {
				ref, ok := refs.Lookup(i, m)
				if !ok {
					t.Fatalf("%s: no reference for instance %d, %s", path, i, m)
				}
				if !(ref > 0) {
					continue // as the study: a ratio to a non-positive value means nothing
				}
				p := GenerateInstance(w, 1, i)
				p.Metric = m
				r, err := solver.Flex{}.Solve(p)
				if err != nil {
					t.Fatal(err)
				}
				ratio := r.Value / ref
				if ratio < 1-1e-9 {
					t.Errorf("J = %d, instance %d, %s: FLEX %v below the reference %v: the reference is stale", c.jobs, i, m, r.Value, ref)
				}
				sum += ratio
				n++
				worst = max(worst, ratio)
			}
			if n == 0 {
				continue
			}
			avg := sum / float64(n)
			t.Logf("J = %d %-26s avg %.4f worst %.4f", c.jobs, m, avg, worst)
			if avg > c.avgBound || worst > c.worstBound {
				t.Error(fmt.Sprintf("J = %d, %s: avg %.4f (bound %.2f), worst %.4f (bound %.2f)", c.jobs, m, avg, c.avgBound, worst, c.worstBound))
			}
		}
	}
}
