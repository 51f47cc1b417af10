package ratio

import (
	"fmt"
	"math"
	"sort"
)

// tol absorbs floating-point noise before a floor or ceiling of a product
// that is an integer on paper (0.29*100 must floor to 29, not 28).
const tol = 1e-9

func floorTol(x float64) int { return int(math.Floor(x + tol)) }

func ceilTol(x float64) int { return int(math.Ceil(x - tol)) }

// floorAtMost is min(floor(x), limit) computed before the conversion to
// int, so an extreme reduce-slot weight cannot overflow it.
func floorAtMost(x float64, limit int) int {
	if !(x < float64(limit)) {
		return limit
	}
	return max(floorTol(x), 0)
}

// loadFactor is DynamicMR's load factor demand/capacity (Algorithm 1, line
// 1); a phase with no slots and some demand is infinitely loaded.
func loadFactor(demand, capacity int) float64 {
	if capacity <= 0 {
		if demand <= 0 {
			return 0
		}
		return math.Inf(1)
	}
	return float64(demand) / float64(capacity)
}

// lendMapToReduce lends up to floor(pct*spare) unused map slots to a reduce
// phase that still needs `need` slots, each reduce slot costing w map slots
// (challenge C2). It returns the reduce slots gained and the map slots they
// cost; cost <= floor(pct*spare) because gain <= floor(allow/w).
func lendMapToReduce(spare, need int, pct, w float64) (gain, cost int) {
	if spare <= 0 || need <= 0 {
		return 0, 0
	}
	allow := floorTol(pct * float64(spare))
	gain = floorAtMost(float64(allow)/w, need)
	return gain, ceilTol(float64(gain) * w)
}

// lendReduceToMap is lendMapToReduce the other way: a reduce slot lent to
// the map phase yields w map slots.
func lendReduceToMap(spare, need int, pct, w float64) (gain, cost int) {
	if spare <= 0 || need <= 0 {
		return 0, 0
	}
	allow := floorTol(pct * float64(spare))
	gain = floorAtMost(float64(allow)*w, need)
	return gain, ceilTol(float64(gain) / w)
}

// piDHSA is DynamicMR Algorithm 1 (PI-DHSA) on the whole cluster, with the
// borrow amount of docs/algorithms.md section 7: the over-loaded phase
// borrows floor(pct x unused slots of the other phase), at most its excess
// demand. (Algorithm 1 line 13 writes floor(capacity*pct) minus the slots
// already borrowed; an epoch recomputes budgets from scratch from demand
// that includes running tasks, so "unused" is capacity minus demand.)
func piDHSA(c Config, cl Cluster, dMap, dRed int, why *[]string) (mapB, redB int, b Borrowed) {
	lfM, lfR := loadFactor(dMap, cl.MapSlots), loadFactor(dRed, cl.ReduceSlots)
	mapB, redB = cl.MapSlots, cl.ReduceSlots
	say := func(f string, a ...any) { *why = append(*why, fmt.Sprintf(f, a...)) }
	say("pi_dhsa: map demand %d on %d slots (load %.3g), reduce demand %d on %d slots (load %.3g)",
		dMap, cl.MapSlots, lfM, dRed, cl.ReduceSlots, lfR)
	switch {
	case lfM <= 1 && lfR <= 1:
		say("case 1 (Algorithm 1 line 3): both phases have enough slots; no borrowing")
	case lfM >= 1 && lfR >= 1:
		say("case 2 (line 7): both phases are short of slots; no borrowing")
	case lfM < 1 && lfR > 1:
		gain, cost := lendMapToReduce(cl.MapSlots-dMap, dRed-cl.ReduceSlots, c.BorrowMap, c.ReduceSlotWeight)
		mapB, redB = cl.MapSlots-cost, cl.ReduceSlots+gain
		b.MapToReduce = cost
		say("case 3 (line 11): reduce borrows %d map slots (borrow_map %.3g of %d unused, excess reduce demand %d, reduce slot weight %.3g) for %d reduce slots",
			cost, c.BorrowMap, cl.MapSlots-dMap, dRed-cl.ReduceSlots, c.ReduceSlotWeight, gain)
	default: // lfM > 1 && lfR < 1
		gain, cost := lendReduceToMap(cl.ReduceSlots-dRed, dMap-cl.MapSlots, c.BorrowReduce, c.ReduceSlotWeight)
		mapB, redB = cl.MapSlots+gain, cl.ReduceSlots-cost
		b.ReduceToMap = cost
		say("case 4 (line 17): map borrows %d reduce slots (borrow_reduce %.3g of %d unused, excess map demand %d, reduce slot weight %.3g) for %d map slots",
			cost, c.BorrowReduce, cl.ReduceSlots-dRed, dMap-cl.MapSlots, c.ReduceSlotWeight, gain)
	}
	return mapB, redB, b
}

// waterfill shares total slots among claimants max-min fairly by weight,
// claimant i taking at most caps[i]: the continuous water level lambda with
// sum_i min(caps[i], w_i*lambda) = min(total, sum caps) is rounded down and
// the slots left go one each by largest remainder, ties by id. This is the
// HFS max-min share DynamicMR builds on (PD-DHSA step (1)). Weights must be
// positive.
func waterfill(total int, caps []int, weights []float64, ids []string) []int {
	n := len(caps)
	x := make([]int, n)
	sumCaps := 0
	for _, c := range caps {
		sumCaps += max(c, 0)
	}
	total = min(max(total, 0), sumCaps)
	if total == 0 {
		return x
	}
	// Claimants in order of the level at which their cap binds.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		ia, ib := order[a], order[b]
		la, lb := float64(caps[ia])/weights[ia], float64(caps[ib])/weights[ib]
		if la != lb {
			return la < lb
		}
		return ids[ia] < ids[ib]
	})
	remT, remW := float64(total), 0.0
	for _, i := range order {
		remW += weights[i]
	}
	raw := make([]float64, n)
	level := 0.0
	k := 0
	for ; k < n; k++ {
		i := order[k]
		level = remT / remW
		if float64(caps[i]) <= weights[i]*level {
			raw[i] = float64(max(caps[i], 0))
			remT -= raw[i]
			remW -= weights[i]
			continue
		}
		break
	}
	for ; k < n; k++ {
		i := order[k]
		raw[i] = math.Min(float64(caps[i]), weights[i]*level)
	}
	given := 0
	for i := range x {
		x[i] = min(int(math.Floor(raw[i]+tol)), caps[i])
		given += x[i]
	}
	left := total - given
	if left <= 0 {
		return x
	}
	byFrac := make([]int, n)
	for i := range byFrac {
		byFrac[i] = i
	}
	sort.Slice(byFrac, func(a, b int) bool {
		ia, ib := byFrac[a], byFrac[b]
		fa, fb := raw[ia]-float64(x[ia]), raw[ib]-float64(x[ib])
		if fa != fb {
			return fa > fb
		}
		return ids[ia] < ids[ib]
	})
	// Each pass hands at most one slot per claimant; more than one pass only
	// happens through rounding noise.
	for left > 0 {
		progress := false
		for _, i := range byFrac {
			if left == 0 {
				break
			}
			if x[i] < caps[i] {
				x[i]++
				left--
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	return x
}

// poolState is one pool's bookkeeping through PD-DHSA.
type poolState struct {
	name                 string
	weight               float64
	dMap, dRed           int
	shareMap, shareRed   int
	budgetMap, budgetRed int
	spareMap, spareRed   int
	needMap, needRed     int
}

// pdDHSA is DynamicMR Algorithm 2 (PD-DHSA) as budgets. Step (1): every
// pool with demand gets a weighted max-min share of each phase's slots.
// Intra-pool (cases a-d of the main paper, 001 "Pool-Dependent DHSA"): a
// pool uses its share for its own demand and lends the unused share of one
// phase to its own other phase first (case a: map to reduce, case b: reduce
// to map, limited by the borrow percentages and the reduce-slot weight).
// Inter-pool (step (2)): what is still unused goes to other pools' unmet
// demand in the same phase max-min fairly, and only then across phases,
// where the borrow percentage caps all cross-phase lending of a phase at
// floor(pct x the unused share of that phase).
func pdDHSA(c Config, cl Cluster, jobs []Job, redDemand []int, why *[]string) (mapB, redB int, b Borrowed, pools []PoolBudget) {
	say := func(f string, a ...any) { *why = append(*why, fmt.Sprintf(f, a...)) }
	weightOf := map[string]float64{}
	for _, p := range c.Pools {
		if p.Weight > 0 && finite(p.Weight) {
			weightOf[p.Name] = p.Weight
		}
	}
	byName := map[string]*poolState{}
	for i, j := range jobs {
		p := byName[j.pool()]
		if p == nil {
			w := weightOf[j.pool()]
			if w == 0 {
				w = 1
			}
			p = &poolState{name: j.pool(), weight: w}
			byName[j.pool()] = p
		}
		p.dMap += j.Map.Demand()
		p.dRed += redDemand[i]
	}
	var ps []*poolState
	for _, p := range byName {
		if p.dMap+p.dRed > 0 {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].name < ps[b].name })
	mapB, redB = cl.MapSlots, cl.ReduceSlots
	if len(ps) == 0 {
		say("pd_dhsa: no pool has demand; budgets are the configured split")
		return mapB, redB, b, nil
	}
	n := len(ps)
	ids := make([]string, n)
	weights := make([]float64, n)
	capsM, capsR := make([]int, n), make([]int, n)
	for i, p := range ps {
		ids[i], weights[i] = p.name, p.weight
		capsM[i], capsR[i] = cl.MapSlots, cl.ReduceSlots
	}
	shM := waterfill(cl.MapSlots, capsM, weights, ids)
	shR := waterfill(cl.ReduceSlots, capsR, weights, ids)
	unusedM, unusedR := 0, 0
	lentM, lentR := 0, 0               // cross-phase lending so far, in lender slots
	gainMapTotal, gainRedTotal := 0, 0 // what the receiving phases gained
	for i, p := range ps {
		p.shareMap, p.shareRed = shM[i], shR[i]
		p.budgetMap, p.budgetRed = min(p.dMap, p.shareMap), min(p.dRed, p.shareRed)
		p.spareMap, p.spareRed = p.shareMap-p.budgetMap, p.shareRed-p.budgetRed
		p.needMap, p.needRed = p.dMap-p.budgetMap, p.dRed-p.budgetRed
		unusedM += p.spareMap
		unusedR += p.spareRed
		switch {
		case p.spareMap > 0 && p.needRed > 0:
			gain, cost := lendMapToReduce(p.spareMap, p.needRed, c.BorrowMap, c.ReduceSlotWeight)
			p.budgetRed += gain
			p.needRed -= gain
			p.spareMap -= cost
			lentM += cost
			gainRedTotal += gain
			say("pool %s case (a): map demand %d < map share %d, reduce demand %d > reduce share %d; lends %d of its map slots to its reduce tasks",
				p.name, p.dMap, p.shareMap, p.dRed, p.shareRed, cost)
		case p.spareRed > 0 && p.needMap > 0:
			gain, cost := lendReduceToMap(p.spareRed, p.needMap, c.BorrowReduce, c.ReduceSlotWeight)
			p.budgetMap += gain
			p.needMap -= gain
			p.spareRed -= cost
			lentR += cost
			gainMapTotal += gain
			say("pool %s case (b): map demand %d > map share %d, reduce demand %d < reduce share %d; lends %d of its reduce slots to its map tasks",
				p.name, p.dMap, p.shareMap, p.dRed, p.shareRed, cost)
		case p.needMap == 0 && p.needRed == 0:
			say("pool %s case (c): map %d/%d and reduce %d/%d within its shares; unused slots go to other pools",
				p.name, p.dMap, p.shareMap, p.dRed, p.shareRed)
		default:
			say("pool %s case (d): map %d/%d and reduce %d/%d both exceed its shares; borrows from other pools if it can",
				p.name, p.dMap, p.shareMap, p.dRed, p.shareRed)
		}
	}
	// Inter-pool, same phase: unused shares go max-min fairly to unmet
	// demand in that phase.
	freeM, freeR := 0, 0
	needM, needR := make([]int, n), make([]int, n)
	for i, p := range ps {
		freeM += p.spareMap
		freeR += p.spareRed
		needM[i], needR[i] = p.needMap, p.needRed
	}
	giveM := waterfill(freeM, needM, weights, ids)
	giveR := waterfill(freeR, needR, weights, ids)
	for i, p := range ps {
		p.budgetMap += giveM[i]
		p.needMap -= giveM[i]
		freeM -= giveM[i]
		p.budgetRed += giveR[i]
		p.needRed -= giveR[i]
		freeR -= giveR[i]
		needM[i], needR[i] = p.needMap, p.needRed
	}
	// Inter-pool, across phases: after the same-phase step a phase with free
	// slots has no unmet demand, so at most one direction applies.
	if freeM > 0 {
		allow := min(freeM, max(0, floorTol(c.BorrowMap*float64(unusedM))-lentM))
		total := floorAtMost(float64(allow)/c.ReduceSlotWeight, sumInts(needR))
		give := waterfill(total, needR, weights, ids)
		gainRed := 0
		for i, p := range ps {
			p.budgetRed += give[i]
			p.needRed -= give[i]
			gainRed += give[i]
		}
		cost := ceilTol(float64(gainRed) * c.ReduceSlotWeight)
		lentM += cost
		gainRedTotal += gainRed
		if gainRed > 0 {
			say("inter-pool: %d unused map slots serve %d reduce tasks of other pools", cost, gainRed)
		}
	}
	if freeR > 0 {
		allow := min(freeR, max(0, floorTol(c.BorrowReduce*float64(unusedR))-lentR))
		total := floorAtMost(float64(allow)*c.ReduceSlotWeight, sumInts(needM))
		give := waterfill(total, needM, weights, ids)
		gainMap := 0
		for i, p := range ps {
			p.budgetMap += give[i]
			p.needMap -= give[i]
			gainMap += give[i]
		}
		cost := ceilTol(float64(gainMap) / c.ReduceSlotWeight)
		lentR += cost
		gainMapTotal += gainMap
		if gainMap > 0 {
			say("inter-pool: %d unused reduce slots serve %d map tasks of other pools", cost, gainMap)
		}
	}
	// Phase totals: the configured split, less what each phase lent, plus
	// what it gained in its own slot units. Slots nobody demands stay idle
	// in their own phase, so pool budgets may sum to less.
	for _, p := range ps {
		pools = append(pools, PoolBudget{Pool: p.name, Map: p.budgetMap, Reduce: p.budgetRed, MapShare: p.shareMap, ReduceShare: p.shareRed})
	}
	b = Borrowed{MapToReduce: lentM, ReduceToMap: lentR}
	mapB = cl.MapSlots - lentM + gainMapTotal
	redB = cl.ReduceSlots - lentR + gainRedTotal
	say("pd_dhsa: map budget %d, reduce budget %d; %d map slots lent to reduce, %d reduce slots lent to map", mapB, redB, lentM, lentR)
	return mapB, redB, b, pools
}

func sumInts(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
