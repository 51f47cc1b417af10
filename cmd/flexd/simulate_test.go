package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimulateRunSweeps runs `simulate run` on two Table 4.4 jobs with
// both sweeps: each adds one row per policy and slowstart, the best of its
// splits, and the pool-fair sweep's row is labelled as such (its runs are
// pd_dhsa with borrowing off, so its map and reduce slots are the split's).
func TestSimulateRunSweeps(t *testing.T) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"simulate", "run", "--workload", "table44", "--jobs", "2", "--policies", "fifo",
		"--ratio", "pd_dhsa", "--slowstart", "1", "--static-sweep", "20", "--pool-static-sweep", "20",
		"--format", "json", "--quiet"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var rows []runRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var ratios []string
	for _, r := range rows {
		ratios = append(ratios, r.Ratio)
	}
	if got := strings.Join(ratios, ","); got != "pd_dhsa,static-best,pool-static-best" {
		t.Fatalf("row ratios %s, want pd_dhsa,static-best,pool-static-best", got)
	}
	pool := rows[2]
	if !strings.HasPrefix(pool.Label, "fifo/pool-static-best/ss=1/") || pool.MapSlots+pool.ReduceSlots != 80 || pool.MapSlots%20 != 0 {
		t.Errorf("pool-static-best row %+v: want a fifo/pool-static-best/ss=1/ label and a split of 80 slots in steps of 20", pool)
	}
	if !(pool.Makespan > 0) {
		t.Errorf("pool-static-best makespan %v, want > 0", pool.Makespan)
	}
}

func TestSimulateRunPoolSweepUsage(t *testing.T) {
	root := newRootCmd()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"simulate", "run", "--workload", "table44", "--pool-static-sweep", "-1", "--quiet"})
	err := root.Execute()
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--pool-static-sweep") {
		t.Errorf("error %v: want a usage error naming --pool-static-sweep", err)
	}
}

// TestSimulateRunOnBestSplit: --on-best-split adds one row per sweep, the
// DHSA mode on the configured slots of that sweep's best split, and needs
// a sweep whose DHSA mode is in --ratio.
func TestSimulateRunOnBestSplit(t *testing.T) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"simulate", "run", "--workload", "table44", "--jobs", "2", "--policies", "fifo",
		"--ratio", "pi_dhsa,pd_dhsa", "--slowstart", "1", "--static-sweep", "20", "--pool-static-sweep", "20",
		"--on-best-split", "--format", "json", "--quiet"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var rows []runRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6 (2 modes, 2 sweeps, 2 runs on the best splits): %+v", len(rows), rows)
	}
	for i, want := range []struct{ ratio, of string }{{"pi_dhsa", "static-best"}, {"pd_dhsa", "pool-static-best"}} {
		best, on := rows[2+i], rows[4+i]
		if best.Ratio != want.of {
			t.Fatalf("row %d ratio %q, want %q", 2+i, best.Ratio, want.of)
		}
		prefix := "fifo/" + want.ratio + "-on-" + want.of + "/ss=1/"
		if on.Ratio != want.ratio || !strings.HasPrefix(on.Label, prefix) || on.MapSlots != best.MapSlots || on.ReduceSlots != best.ReduceSlots {
			t.Errorf("row %+v: want %s on %s's slots %d/%d, labelled %s...", on, want.ratio, want.of, best.MapSlots, best.ReduceSlots, prefix)
		}
		if !(on.Makespan > 0) {
			t.Errorf("%s makespan %v, want > 0", on.Label, on.Makespan)
		}
	}

	root = newRootCmd()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"simulate", "run", "--workload", "table44", "--jobs", "2", "--ratio", "pd_dhsa",
		"--static-sweep", "20", "--on-best-split", "--quiet"})
	err := root.Execute()
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--on-best-split") {
		t.Errorf("pd_dhsa with only --static-sweep: error %v, want a usage error naming --on-best-split", err)
	}
}

// TestSimulateStudyReferenceSearch: past J = 10 the study divides by the
// best-known order of a long search, cached by workload, seed and effort,
// so that a rerun reads the cache and prints the same table; without
// --reference search it refuses and says what to use.
func TestSimulateStudyReferenceSearch(t *testing.T) {
	cache := t.TempDir()
	study := func() string {
		t.Helper()
		root := newRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&bytes.Buffer{})
		root.SetArgs([]string{"simulate", "study", "--jobs", "12", "--instances", "2", "--reference", "search",
			"--reference-effort", "1", "--reference-cache", cache, "--metrics", "avg_tardiness,max_stretch",
			"--policies", "flex,fair", "--quiet"})
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	first := study()
	for _, want := range []string{"avg_tardiness  flex", "max_stretch    fair"} {
		if !strings.Contains(first, want) {
			t.Errorf("table lacks %q:\n%s", want, first)
		}
	}
	files, err := filepath.Glob(filepath.Join(cache, "ref-j12-s120-*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("cache files %v (%v), want one for J = 12, S = 120", files, err)
	}
	before, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if second := study(); second != first {
		t.Errorf("rerun from the cache differs:\n%s\nvs\n%s", second, first)
	}
	if after, _ := os.ReadFile(files[0]); !bytes.Equal(after, before) {
		t.Errorf("rerun rewrote the cache with other values")
	}

	root := newRootCmd()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"simulate", "study", "--jobs", "12", "--quiet"})
	err = root.Execute()
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--reference search") {
		t.Errorf("error %v: want a usage error pointing at --reference search", err)
	}
}

// TestSimulateRunFromAnyDirectory: the default SWIM trace is embedded, so
// `simulate run` works outside the repository; a --plot into a missing
// directory is refused before the run (exit 2, nothing on stdout), naming
// the path.
func TestSimulateRunFromAnyDirectory(t *testing.T) {
	t.Chdir(t.TempDir())
	args := []string{"simulate", "run", "--jobs", "20", "--compress", "10", "--map-slots", "30", "--reduce-slots", "15", "--policies", "flex", "--quiet"}
	out, err := runFlexd(t, args...)
	if err != nil {
		t.Fatalf("simulate run outside the repository: %v", err)
	}
	if !strings.Contains(out, "(embedded): first 20 jobs") || !strings.Contains(out, "flex/static") {
		t.Errorf("simulate run output:\n%s", out)
	}
	missing := filepath.Join("no", "such", "dir", "run.png")
	out, err = runFlexd(t, append(args, "--plot", missing)...)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("--plot into a missing directory: %v, want a usage error naming %s", err, missing)
	}
	if out != "" {
		t.Errorf("--plot into a missing directory ran anyway:\n%s", out)
	}
}

// TestSimulateStudySearchSeeds: --search-seeds takes 1 to 64 (out of it, a
// usage error naming the flag), and a study with several seeds runs.
func TestSimulateStudySearchSeeds(t *testing.T) {
	if _, err := runFlexd(t, "simulate", "study", "--jobs", "6", "--instances", "2", "--metrics", "sla_cost",
		"--policies", "flex", "--format", "csv", "--quiet", "--search-seeds", "3"); err != nil {
		t.Errorf("--search-seeds 3: %v", err)
	}
	for _, bad := range []string{"0", "65", "-1"} {
		_, err := runFlexd(t, "simulate", "study", "--jobs", "6", "--quiet", "--search-seeds", bad)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--search-seeds") {
			t.Errorf("--search-seeds %s: error %v, want a usage error naming --search-seeds", bad, err)
		}
	}
}

// TestSimulateStudyEffort: --effort sets how long FLEX searches, not the
// reference: on the same cached references, the candidate orders alone
// (--effort 0) score worse than the default search on weighted tardiness at
// J = 30; out of [0, 16] it is a usage error naming the flag.
func TestSimulateStudyEffort(t *testing.T) {
	cache := t.TempDir()
	ratio := func(effort string) float64 {
		t.Helper()
		out, err := runFlexd(t, "simulate", "study", "--jobs", "30", "--instances", "2", "--reference", "search",
			"--reference-effort", "1", "--reference-cache", cache, "--metrics", "weighted_tardiness",
			"--policies", "flex", "--format", "csv", "--quiet", "--effort", effort)
		if err != nil {
			t.Fatalf("--effort %s: %v", effort, err)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("--effort %s: csv %q (%v), want a header and one row", effort, out, err)
		}
		v, err := strconv.ParseFloat(rows[1][2], 64)
		if err != nil {
			t.Fatalf("--effort %s: average %q: %v", effort, rows[1][2], err)
		}
		return v
	}
	fastest, def := ratio("0"), ratio("1")
	if !(fastest > def) {
		t.Errorf("average ratio %v with --effort 0, %v with the default: want the search to do better", fastest, def)
	}
	files, err := filepath.Glob(filepath.Join(cache, "*.json"))
	if err != nil || len(files) != 1 {
		t.Errorf("cache files %v (%v): want the one reference set both studies share", files, err)
	}
	for _, bad := range []string{"17", "-1"} {
		_, err := runFlexd(t, "simulate", "study", "--jobs", "30", "--reference", "search", "--quiet", "--effort", bad)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--effort") {
			t.Errorf("--effort %s: error %v, want a usage error naming --effort", bad, err)
		}
	}
}
