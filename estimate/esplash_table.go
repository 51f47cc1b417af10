package estimate

import (
	"maps"
	"math"
	"slices"
)

// statTable is ESPLASH's statistics table ST (5.2.2): per level and task
// type, the mean and standard deviation of the completed original
// attempts' times, pooled over the level's nodes.
//
// A cell without a sample is imputed (D-S20): the type's mean over every
// level times the level's speed relative to that mean (the median, over
// the types the level has finished, of the level's mean over the type's
// mean), with the type's median coefficient of variation over its cells
// of two samples or more. The paper's table has every type on every level
// (5.2.1 assumes it of the performance vectors, D-S2 imputes there too);
// in a cluster it rarely has. Without the imputation a task of a type no
// other node of its level has finished adds nothing to its node's
// straggler value, so a node running only such tasks (a fast level's
// last reduces: each job's ten reduces mostly run on the big slow nodes)
// is never a straggler, however slow, and its backups are valued with the
// type's mean over every level, which the slow levels dominate.
type statTable struct {
	sums     map[levelType][3]float64
	typeSums map[string][3]float64
	ratio    map[int]float64
	cv       map[string]float64
	floor    float64
}

// levelType keys the table.
type levelType struct {
	level int
	typ   string
}

// newStatTable pools stats (per node and type: [n, sum, sum of squares])
// by the nodes' levels; floor is D-S5's sigma floor, a share of the mean.
func newStatTable(stats map[string]map[string][3]float64, levels map[string]int, floor float64) *statTable {
	t := &statTable{sums: map[levelType][3]float64{}, typeSums: map[string][3]float64{},
		ratio: map[int]float64{}, cv: map[string]float64{}, floor: floor}
	// In id order: a float sum's last bits depend on the order of its
	// terms, and the advice must not depend on map iteration (replay
	// compares decisions bit for bit).
	for _, node := range slices.Sorted(maps.Keys(stats)) {
		per := stats[node]
		l := levels[node]
		for _, typ := range slices.Sorted(maps.Keys(per)) {
			v := per[typ]
			k := levelType{l, typ}
			a, b := t.sums[k], t.typeSums[typ]
			t.sums[k] = [3]float64{a[0] + v[0], a[1] + v[1], a[2] + v[2]}
			t.typeSums[typ] = [3]float64{b[0] + v[0], b[1] + v[1], b[2] + v[2]}
		}
	}
	ratios := map[int][]float64{}
	cvs := map[string][]float64{}
	for k, v := range t.sums {
		c, ok := t.cellOf(v)
		if !ok {
			continue
		}
		if all, ok := t.cellOf(t.typeSums[k.typ]); ok && k.level > 0 && all.mu > 0 {
			ratios[k.level] = append(ratios[k.level], c.mu/all.mu)
		}
		if c.n >= 2 && c.mu > 0 {
			cvs[k.typ] = append(cvs[k.typ], c.sd/c.mu)
		}
	}
	for l, xs := range ratios {
		t.ratio[l] = median(xs)
	}
	for typ, xs := range cvs {
		t.cv[typ] = median(xs)
	}
	return t
}

// median sorts xs and returns its middle element (the upper one of an
// even count).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// cellOf turns [n, sum, sum of squares] into a cell: the mean and the
// sample standard deviation floored at floor times the mean (D-S5).
func (t *statTable) cellOf(v [3]float64) (cell, bool) {
	if v[0] < 1 {
		return cell{}, false
	}
	mu := v[1] / v[0]
	sd := 0.0
	if v[0] > 1 {
		sd = math.Sqrt(math.Max(0, (v[2]-v[0]*mu*mu)/(v[0]-1)))
	}
	return cell{n: v[0], mu: mu, sd: math.Max(sd, t.floor*mu)}, true
}

// cell is ST(level, typ), measured or imputed (n = 0); false when neither
// the type nor the level has a sample.
func (t *statTable) cell(level int, typ string) (cell, bool) {
	if c, ok := t.cellOf(t.sums[levelType{level, typ}]); ok {
		return c, true
	}
	all, ok := t.cellOf(t.typeSums[typ])
	r, known := t.ratio[level]
	if !ok || !known {
		return cell{}, false
	}
	mu := all.mu * r
	return cell{mu: mu, sd: mu * math.Max(t.floor, t.cv[typ])}, true
}

// typeCell is the type's cell over every level.
func (t *statTable) typeCell(typ string) (cell, bool) { return t.cellOf(t.typeSums[typ]) }
