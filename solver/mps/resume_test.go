package mps

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestResumeMatchesBoundCompletions: for any input, recorded order and
// insertion move, Resume gives bit for bit the completions of a full run,
// and keeps doing so over a chain of moves (each accepted move recorded,
// by Record or from the shared prefix by Rerecord).
func TestResumeMatchesBoundCompletions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in, order := genInput(t, 40)
		n := len(order)
		if n == 0 {
			return
		}
		var full, inc Packer
		full.Bind(in)
		inc.Bind(in)
		want := make([]float64, n)
		got := make([]float64, n)
		inc.Record(order, got)
		full.BoundCompletions(order, want)
		checkSame(t, "record", want, got)
		for step := range rapid.IntRange(1, 6).Draw(t, "moves") {
			i := rapid.IntRange(0, n-1).Draw(t, "i")
			k := rapid.IntRange(0, n).Draw(t, "k")
			next := make([]int, n)
			moveTo(next, order, i, k)
			prefix := min(i, k)
			if got := inc.RecordedPrefix(next); got < prefix || got == n && !slices.Equal(next, order) {
				t.Fatalf("move %d (%d to %d): RecordedPrefix %d, want at least %d and the order itself only if unchanged", step, i, k, got, prefix)
			}
			full.BoundCompletions(next, want)
			inc.Resume(next, prefix, got)
			checkSame(t, fmt.Sprintf("move %d (%d to %d)", step, i, k), want, got)
			if rapid.Bool().Draw(t, "accept") {
				order = next
				if rapid.Bool().Draw(t, "rerecord") {
					inc.Rerecord(order, prefix, got)
					var fresh Packer
					fresh.Bind(in)
					fresh.Record(order, make([]float64, n))
					checkSameRecording(t, &fresh, &inc)
				} else {
					inc.Record(order, got)
				}
				checkSame(t, fmt.Sprintf("record of move %d", step), want, got)
				if p := inc.RecordedPrefix(order); p != n {
					t.Fatalf("record of move %d: RecordedPrefix of the order recorded %d, want %d", step, p, n)
				}
			}
		}
	})
}

// checkSameRecording fails unless got holds the recording want does: the
// same order, completions, events and snapshots (heap entries aside, whose
// tie-breaking positions Rerecord may keep from the old order).
func checkSameRecording(t *rapid.T, want, got *Packer) {
	if !slices.Equal(want.recOrder, got.recOrder) || !slices.Equal(want.recOut, got.recOut) {
		t.Fatalf("recorded order or completions differ")
	}
	if !slices.Equal(want.evPtr, got.evPtr) || !slices.Equal(want.evLive, got.evLive) || !slices.Equal(want.evT, got.evT) ||
		!slices.Equal(want.evLeft, got.evLeft) || !slices.Equal(want.evRem, got.evRem) {
		t.Fatalf("recorded events differ:\n%v %v %v %v %v\n%v %v %v %v %v", want.evPtr, want.evLive, want.evT, want.evLeft, want.evRem, got.evPtr, got.evLive, got.evT, got.evLeft, got.evRem)
	}
	if want.ncp != got.ncp {
		t.Fatalf("%d snapshots, want %d", got.ncp, want.ncp)
	}
	for x := range want.ncp {
		w, g := &want.cps[x], &got.cps[x]
		if w.need != g.need || w.t != g.t || w.live != g.live || w.ptr != g.ptr || w.slack != g.slack || w.used != g.used || w.mcur != g.mcur ||
			w.bnd != g.bnd || w.bnd >= 0 && (w.bndPos != g.bndPos || math.Float64bits(w.bndAt) != math.Float64bits(g.bndAt)) {
			t.Fatalf("snapshot %d: %+v, want %+v", x, *g, *w)
		}
		for j := range w.jobs {
			a, b := w.jobs[j], g.jobs[j]
			if a.rem != b.rem || a.tUpd != b.tUpd || a.cur != b.cur || a.pos != b.pos || a.live != b.live {
				t.Fatalf("snapshot %d, job %d: %+v, want %+v", x, j, b, a)
			}
		}
	}
}

func checkSame(t *rapid.T, what string, want, got []float64) {
	for j := range want {
		if math.Float64bits(want[j]) != math.Float64bits(got[j]) {
			t.Fatalf("%s: job %d completes at %v, full run says %v", what, j, got[j], want[j])
		}
	}
}

// moveTo writes into dst src with the job at i moved before the job at k
// (k = len(src): to the end), as solver's local search does.
func moveTo(dst, src []int, i, k int) {
	x := src[i]
	out := dst[:0]
	for p, j := range src {
		if p == k {
			out = append(out, x)
		}
		if p != i {
			out = append(out, j)
		}
	}
	if k == len(src) {
		out = append(out, x)
	}
}

func TestResumePanicsOnMisuse(t *testing.T) {
	in, order := benchInput(5)
	out := make([]float64, 5)
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	var p Packer
	mustPanic("resume before record", func() { p.Resume(order, 0, out) })
	p.Bind(in)
	mustPanic("resume before record after bind", func() { p.Resume(order, 0, out) })
	mustPanic("rerecord before record", func() { p.Rerecord(order, 0, out) })
	if k := p.RecordedPrefix(order); k != 0 {
		t.Errorf("RecordedPrefix before any Record: %d, want 0", k)
	}
	p.Record(order, out)
	other := append([]int(nil), order...)
	other[0], other[1] = other[1], other[0]
	mustPanic("prefix differs", func() { p.Resume(other, 2, out) })
	mustPanic("rerecord prefix differs", func() { p.Rerecord(other, 2, out) })
	mustPanic("rerecord prefix too long", func() { p.Rerecord(order, 6, out) })
	mustPanic("prefix too long", func() { p.Resume(order, 6, out) })
	dup := append([]int(nil), order...)
	dup[4] = dup[3]
	mustPanic("not a permutation", func() { p.Resume(dup, 3, out) })
	p.Bind(in)
	mustPanic("bind forgets the record", func() { p.Resume(order, 0, out) })
}

// BenchmarkResume measures what prefix reuse saves in a local search's
// insertion neighbourhood: every move of a job to another position of a
// fixed order, scored by a full run (full) or by Resume from the recorded
// order (resume). The ratio is the saving per neighbourhood pass. A move
// recorded as the new incumbent, by Record (record) or from the shared
// prefix (rerecord), then back to the fixed order the same way, gives what
// Rerecord saves on a search's records.
//
//	go test ./solver/mps -run '^$' -bench BenchmarkResume
func BenchmarkResume(b *testing.B) {
	for _, n := range []int{50, 100, 200, 1000} {
		in, order := benchInput(n)
		r := rand.New(rand.NewPCG(2, uint64(n)))
		type move struct{ i, k int }
		moves := make([]move, 256)
		for x := range moves {
			moves[x] = move{r.IntN(n), r.IntN(n + 1)}
		}
		next := make([]int, n)
		out := make([]float64, n)
		for _, mode := range []string{"full", "resume", "record", "rerecord"} {
			b.Run(fmt.Sprintf("jobs=%d/mode=%s", n, mode), func(b *testing.B) {
				var p Packer
				p.Bind(in)
				p.Record(order, out)
				x := 0
				for b.Loop() {
					m := moves[x%len(moves)]
					x++
					moveTo(next, order, m.i, m.k)
					switch mode {
					case "full":
						p.BoundCompletions(next, out)
					case "resume":
						p.Resume(next, min(m.i, m.k), out)
					case "record":
						p.Record(next, out)
						p.Record(order, out)
					case "rerecord":
						p.Rerecord(next, min(m.i, m.k), out)
						p.Rerecord(order, min(m.i, m.k), out)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/move")
			})
		}
	}
}

// TestEstimateExactWhenNotCut: an Estimate that finds no meeting with the
// recorded run schedules to the end and is then exactly a full run. (When
// it is cut short it is an estimate: exact on the study's instances, see
// sim's TestEstimateExactOnStudyInstances, but not on every input: with
// ties and huge works a meeting within its tolerances can shift later
// completions a little; the search keeps only moves estimated better by
// more than that, and scores its incumbent in full when it records it.)
func TestEstimateExactWhenNotCut(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in, order := genInput(t, 40)
		n := len(order)
		if n < 2 {
			return
		}
		var full, inc Packer
		full.Bind(in)
		inc.Bind(in)
		recorded := make([]float64, n)
		inc.Record(order, recorded)
		i := rapid.IntRange(0, n-1).Draw(t, "i")
		k := rapid.IntRange(0, n).Draw(t, "k")
		next := make([]int, n)
		moveTo(next, order, i, k)
		want := make([]float64, n)
		full.BoundCompletions(next, want)
		got := append([]float64(nil), recorded...)
		touched := inc.Estimate(next, min(i, k), min(max(i, k), n-1), got)
		if inc.Spliced() {
			return
		}
		for _, j := range touched {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("move %d to %d: job %d completes at %v, full run says %v", i, k, j, got[j], want[j])
			}
		}
	})
}

// TestCompletionByMatchesBoundCompletions: for any input, order and job x,
// CompletionBy gives x's completion of a full run bit for bit when x is
// done by the limit and +Inf when it is not, from no recording at all
// and from a recording that shares any prefix with the order; and the
// packer is as it was after it (a full run and a Resume next give a full
// run's completions).
func TestCompletionByMatchesBoundCompletions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in, order := genInput(t, 40)
		n := len(order)
		if n == 0 {
			return
		}
		var full, p Packer
		full.Bind(in)
		p.Bind(in)
		want := make([]float64, n)
		out := make([]float64, n)
		i := rapid.IntRange(0, n-1).Draw(t, "i")
		k := rapid.IntRange(0, n).Draw(t, "k")
		next := make([]int, n)
		moveTo(next, order, i, k)
		full.BoundCompletions(next, want)
		if rapid.Bool().Draw(t, "record") {
			p.Record(order, make([]float64, n))
		}
		x := rapid.IntRange(0, n-1).Draw(t, "x")
		// The limit at, just before or after x's completion, or anywhere.
		by := in.Now + rapid.Float64Range(0, 2*(want[x]-in.Now)).Draw(t, "by")
		switch rapid.IntRange(0, 2).Draw(t, "at") {
		case 0:
			by = want[x]
		case 1:
			by = math.Nextafter(want[x], math.Inf(-1))
		}
		got := p.CompletionBy(next, x, by, out)
		switch {
		case want[x] <= by && math.Float64bits(got) != math.Float64bits(want[x]):
			t.Fatalf("job %d (by %v): CompletionBy %v, a full run %v", x, by, got, want[x])
		case want[x] > by && !math.IsInf(got, 1):
			t.Fatalf("job %d (by %v): CompletionBy %v, want +Inf (a full run: %v)", x, by, got, want[x])
		}
		after := make([]float64, n)
		p.BoundCompletions(next, after)
		checkSame(t, "full run after CompletionBy", want, after)
		if k := p.RecordedPrefix(next); k > 0 {
			p.Resume(next, k, after)
			checkSame(t, "resume after CompletionBy", want, after)
		}
	})
}

func TestCompletionByPanicsOnMisuse(t *testing.T) {
	in, order := benchInput(5)
	out := make([]float64, 5)
	for _, c := range []struct {
		name string
		bind bool
		job  int
	}{{"before bind", false, 0}, {"job negative", true, -1}, {"job past the last", true, 5}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			var p Packer
			if c.bind {
				p.Bind(in)
			}
			p.CompletionBy(order, c.job, 1, out)
		}()
	}
}
