//go:build ignore

// refresh.go searches the references of the given metrics again and keeps,
// per instance and metric, the lower of the stored value and the new one:
// both are objectives of orders that were found, so the lower is the best
// known. A FLEX that improves makes the stored references stale (the
// search starts from FLEX's answers); this refreshes them without
// forgetting what earlier searches found. From the repository root:
//
//	go run sim/testdata/references/refresh.go -metrics tardy_jobs,sla_cost
//
// With -search-seeds N it also keeps FLEX's own answers with the first N
// seeds of its random kicks, for tests that average over them.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/solver"
)

func main() {
	metrics := flag.String("metrics", "", "comma-separated metrics to search again")
	dir := flag.String("dir", "sim/testdata/references", "directory of the reference files")
	// 0 by default: BestKnown already starts from FLEX's answer with
	// seed 0, so -search-seeds 1 adds nothing to it.
	seeds := flag.Int("search-seeds", 0, "also keep FLEX's own answers at the default effort with this many seeds of its random kicks (0 to n-1), as the tests that average over seeds score them")
	flag.Parse()
	if *seeds < 0 {
		log.Fatalf("-search-seeds %d: want at least 0", *seeds)
	}
	if *metrics == "" {
		log.Fatal("-metrics is required")
	}
	var ms []penalty.Metric
	for _, m := range strings.Split(*metrics, ",") {
		if _, ok := penalty.Lookup(penalty.Metric(m)); !ok {
			log.Fatalf("unknown metric %q", m)
		}
		ms = append(ms, penalty.Metric(m))
	}
	files, err := filepath.Glob(filepath.Join(*dir, "ref-*.json"))
	if err != nil || len(files) == 0 {
		log.Fatalf("no reference files in %s (%v)", *dir, err)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := refresh(f, ms, *seeds); err != nil {
				log.Fatal(err)
			}
		}()
	}
	wg.Wait()
}

func refresh(path string, ms []penalty.Metric, seeds int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// The settings are read from the file itself.
	var head struct {
		Workload sim.Workload `json:"workload"`
		Seed     uint64       `json:"seed"`
		Effort   int          `json:"effort"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rs, err := sim.LoadReferenceSet(path, head.Workload, head.Seed, head.Effort)
	if err != nil {
		return err
	}
	lowered := 0
	for i := 0; ; i++ {
		if _, ok := rs.Lookup(i, ms[0]); !ok {
			break
		}
		p := sim.GenerateInstance(head.Workload, head.Seed, i)
		vs, err := solver.BestKnown(p, ms, head.Effort*sim.ReferenceEvaluationsPerEffort, head.Seed)
		if err != nil {
			return fmt.Errorf("%s instance %d: %w", path, i, err)
		}
		// BestKnown starts from FLEX's answer with the default seed of
		// its kicks; another seed's answer may be lower, and a test that
		// averages over seeds would find the reference stale.
		for x, m := range ms {
			for seed := range uint64(seeds) {
				q := p
				q.Metric = m
				q.Options.SearchSeed = seed
				r, err := solver.Flex{}.Solve(q)
				if err != nil {
					return fmt.Errorf("%s instance %d, %s, seed %d: %w", path, i, m, seed, err)
				}
				vs[x] = min(vs[x], r.Value)
			}
		}
		for x, m := range ms {
			if old, _ := rs.Lookup(i, m); vs[x] < old {
				rs.Set(i, m, vs[x])
				lowered++
			}
		}
	}
	fmt.Printf("%s: %d values lowered\n", filepath.Base(path), lowered)
	return rs.Save(path)
}
