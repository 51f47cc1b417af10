package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortedByIDMatchesCompare: sortedByID orders distinct ids as the
// comparison sort with strings.Compare does, on ids with a long shared
// prefix, ids that are prefixes of others, ids that differ only past the
// key's 8 bytes, and non-ASCII ids.
func TestSortedByIDMatchesCompare(t *testing.T) {
	gens := map[string]func(r *rand.Rand, i int) string{
		"padded": func(r *rand.Rand, i int) string { return fmt.Sprintf("job_%012d", r.IntN(1<<40)*1000+i) },
		"prefixes": func(r *rand.Rand, i int) string {
			return strings.Repeat("a", r.IntN(12)) + fmt.Sprint(i%7) + strings.Repeat("b", i/7)
		},
		"long tail": func(r *rand.Rand, i int) string {
			return "shared-prefix-" + strings.Repeat("x", 9) + fmt.Sprintf("%06d", i)
		},
		"mixed": func(r *rand.Rand, i int) string {
			return string(rune('a'+r.IntN(3))) + "é" + fmt.Sprint(r.IntN(100), "_", i)
		},
		"unshared": func(r *rand.Rand, i int) string { return fmt.Sprint(r.Uint64(), "-", i) },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 50, 3000} {
			r := rand.New(rand.NewPCG(uint64(n), 7))
			ids := make([]string, n)
			seen := map[string]bool{}
			for i := range ids {
				ids[i] = gen(r, i)
				if seen[ids[i]] {
					ids[i] += fmt.Sprintf("#%d", i)
				}
				seen[ids[i]] = true
			}
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			slices.SortFunc(want, func(a, b int) int { return strings.Compare(ids[a], ids[b]) })
			if got := sortedByID(n, func(i int) string { return ids[i] }); !slices.Equal(got, want) {
				t.Fatalf("%s, n=%d: order differs from the comparison sort's", name, n)
			}
		}
	}
}
