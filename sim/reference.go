package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// ReferenceEvaluationsPerEffort is what one unit of reference effort buys:
// MPS evaluations per instance and metric of solver.BestKnown's search.
const ReferenceEvaluationsPerEffort = 10_000

// ReferenceSet is a cache of best-known objectives: for one workload, seed
// and reference effort, the value per instance index and metric. Its JSON
// form is what `flexd simulate study --reference search` keeps in its cache
// directory and what testdata/references holds.
type ReferenceSet struct {
	Workload Workload `json:"workload"`
	Seed     uint64   `json:"seed"`
	// Effort is the reference effort (ReferenceEvaluationsPerEffort
	// evaluations per unit).
	Effort int `json:"effort"`
	// Values maps an instance index (decimal) to the best-known value per
	// metric name.
	Values map[string]map[penalty.Metric]float64 `json:"values"`

	mu sync.Mutex
}

// ReferenceFile is the cache file name of a set's settings.
func ReferenceFile(w Workload, seed uint64, effort int) string {
	return fmt.Sprintf("ref-j%d-s%d-small%g-slack%g-seed%d-effort%d.json", w.Jobs, w.Slots, w.Small, w.Slack, seed, effort)
}

// LoadReferenceSet reads a set from path; a missing file gives an empty set
// with the given settings. A file whose settings differ is an error, so a
// cache never answers for other instances.
func LoadReferenceSet(path string, w Workload, seed uint64, effort int) (*ReferenceSet, error) {
	rs := &ReferenceSet{Workload: w, Seed: seed, Effort: effort, Values: map[string]map[penalty.Metric]float64{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading references: %w", err)
	}
	var got ReferenceSet
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, fmt.Errorf("reading references %s: %w", path, err)
	}
	if got.Workload != w || got.Seed != seed || got.Effort != effort {
		return nil, fmt.Errorf("references %s are for %+v seed %d effort %d, not %+v seed %d effort %d",
			path, got.Workload, got.Seed, got.Effort, w, seed, effort)
	}
	if got.Values != nil {
		rs.Values = got.Values
	}
	return rs, nil
}

// Save writes the set to path atomically (a temporary file renamed over it).
func (rs *ReferenceSet) Save(path string) error {
	rs.mu.Lock()
	b, err := json.MarshalIndent(rs, "", " ")
	rs.mu.Unlock()
	if err != nil {
		return fmt.Errorf("encoding references: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("references directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ref-*")
	if err != nil {
		return fmt.Errorf("writing references: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing references: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing references: %w", err)
	}
	// CreateTemp makes the file private; references are not secrets.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("writing references: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing references: %w", err)
	}
	return nil
}

// Lookup returns the cached value of instance i and metric m.
func (rs *ReferenceSet) Lookup(i int, m penalty.Metric) (float64, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	v, ok := rs.Values[fmt.Sprint(i)][m]
	return v, ok
}

// Set stores v as the value of instance i and metric m.
func (rs *ReferenceSet) Set(i int, m penalty.Metric, v float64) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	key := fmt.Sprint(i)
	if rs.Values[key] == nil {
		rs.Values[key] = map[penalty.Metric]float64{}
	}
	rs.Values[key][m] = v
}

// SearchOracle is an Oracle for instances past MaxOptJobs: each metric's
// best-known value from solver.BestKnown with effort *
// ReferenceEvaluationsPerEffort evaluations, taken from rs when it has it
// and stored there when it does not. Instances are recognised by the index
// the study gives them (IndexedOracle).
func SearchOracle(rs *ReferenceSet) IndexedOracle {
	return func(i int, p solver.Problem, metrics []penalty.Metric) ([]float64, error) {
		out := make([]float64, len(metrics))
		for x, m := range metrics {
			if v, ok := rs.Lookup(i, m); ok {
				out[x] = v
				continue
			}
			vs, err := solver.BestKnown(p, []penalty.Metric{m}, rs.Effort*ReferenceEvaluationsPerEffort, rs.Seed)
			if err != nil {
				return nil, fmt.Errorf("reference search: %w", err)
			}
			rs.Set(i, m, vs[0])
			out[x] = vs[0]
		}
		return out, nil
	}
}

// IndexedOracle is an Oracle that also knows the instance's index in its
// study, so that it can cache by index.
type IndexedOracle func(index int, p solver.Problem, metrics []penalty.Metric) ([]float64, error)
