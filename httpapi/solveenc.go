package httpapi

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flexd/flexd/solver"
)

// appendSolveAnswer appends the /v1/solve answer to res in plan encoding
// enc to b: byte for byte what json.Marshal writes for
// newSolveResponse(res, explain, elapsed, enc), object keys sorted as
// encoding/json sorts a map's, without building the SolveResponse: no map
// per interval, no map of completions. It sorts the job ids once (O(J log
// J)) and each delta interval's changes by that rank, so a delta answer
// costs O(J log J) time and O(J) memory for FLEX's O(J) changes, whatever
// the number of intervals. A result JSON cannot carry (checkFinite's
// infinite numbers) is the same *solver.ValidationError Solve returns.
func appendSolveAnswer(b []byte, res solver.Result, explain bool, elapsed time.Duration, enc string) ([]byte, error) {
	if err := checkFiniteResult(&res, explain, enc); err != nil {
		return b, err
	}
	ids := make([]string, len(res.Allocations))
	for i, a := range res.Allocations {
		ids[i] = a.ID
	}
	byID, rank := idOrder(ids)

	b = append(b, `{"policy":`...)
	b = appendJSONString(b, res.Policy)
	b = append(b, `,"objective":{"metric":`...)
	b = appendJSONString(b, string(res.Metric))
	b = append(b, `,"aggregate":`...)
	b = appendJSONString(b, string(res.Aggregate))
	b = append(b, `,"value":`...)
	b = appendJSONFloat(b, res.Value)
	b = append(b, `,"mean":`...)
	b = appendJSONFloat(b, res.Mean)
	b = append(b, `},"allocations":[`...)
	for i, a := range res.Allocations {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = appendJSONString(b, a.ID)
		b = append(b, `,"slots":`...)
		b = strconv.AppendInt(b, int64(a.Slots), 10)
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, string(a.Reason))
		b = append(b, '}')
	}
	b = append(b, `],"plan":`...)
	b = appendPlan(b, &res.Plan, ids, byID, rank, enc)
	b = append(b, `,"ordering":{"scheme":`...)
	b = appendJSONString(b, res.Scheme)
	b = append(b, `,"jobs":[`...)
	first := true
	for _, k := range res.Order {
		if k >= 0 && k < len(ids) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendJSONString(b, ids[k])
		}
	}
	b = append(b, `]},"normalized_minima":`...)
	b = strconv.AppendBool(b, res.NormalizedMinima)
	if explain {
		b = append(b, `,"explain":{"candidates":[`...)
		for i, c := range res.Candidates {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"scheme":`...)
			b = appendJSONString(b, c.Scheme)
			b = append(b, `,"value":`...)
			b = appendJSONFloat(b, c.Value)
			b = append(b, '}')
		}
		b = append(b, ']')
		if n := min(len(res.FairShares), len(ids)); n > 0 {
			b = append(b, `,"fair_shares":{`...)
			b = appendIDFloats(b, ids, byID, res.FairShares[:n])
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = append(b, `,"solve_micros":`...)
	b = strconv.AppendInt(b, elapsed.Microseconds(), 10)
	return append(b, '}'), nil
}

// idOrder lists job indexes in the order encoding/json writes a map keyed
// by their ids (byID), and each index's place in it (rank).
func idOrder(ids []string) (byID, rank []int32) {
	byID = make([]int32, len(ids))
	for i := range byID {
		byID[i] = int32(i)
	}
	slices.SortFunc(byID, func(x, y int32) int { return strings.Compare(ids[x], ids[y]) })
	rank = make([]int32, len(ids))
	for r, i := range byID {
		rank[i] = int32(r)
	}
	return byID, rank
}

// answerSizeHint is about the size of res's delta answer, so that
// appendSolveAnswer's buffer grows at most once: per job its allocation,
// completion and place in the order, per change and interval their
// members, each id counted with its quotes.
func answerSizeHint(res *solver.Result) int {
	ids := 0
	for _, a := range res.Allocations {
		ids += len(a.ID) + 2
	}
	n := 1024 + 3*ids + 64*len(res.Allocations) + 64*len(res.Plan.Intervals)
	if len(res.Allocations) > 0 {
		changes := 0
		for _, iv := range res.Plan.Intervals {
			changes += len(iv.Changes)
		}
		n += changes * (ids/len(res.Allocations) + 8)
	}
	return n
}

// appendPlan appends newPlan(*pl, ids, enc) as json.Marshal writes it.
func appendPlan(b []byte, pl *solver.Plan, ids []string, byID, rank []int32, enc string) []byte {
	enc = planEncoding(pl, enc)
	b = append(b, `{"encoding":`...)
	b = appendJSONString(b, enc)
	b = append(b, `,"intervals":[`...)
	switch enc {
	case planNone:
	case planDelta:
		// One interval's changes in id order; a job changed twice in an
		// interval keeps its last count, as the map did.
		type change struct {
			rank, seq int32
			slots     int
		}
		var cs []change
		for k, iv := range pl.Intervals {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendInterval(b, iv.Start, iv.End)
			cs = cs[:0]
			for q, c := range iv.Changes {
				if c.Job >= 0 && c.Job < len(ids) {
					cs = append(cs, change{rank[c.Job], int32(q), c.Slots})
				}
			}
			slices.SortFunc(cs, func(x, y change) int {
				if x.rank != y.rank {
					return int(x.rank - y.rank)
				}
				return int(x.seq - y.seq)
			})
			first := true
			for q, c := range cs {
				if q+1 < len(cs) && cs[q+1].rank == c.rank {
					continue
				}
				b = appendKey(b, &first, ids[byID[c.rank]])
				b = strconv.AppendInt(b, int64(c.slots), 10)
			}
			b = append(b, "}}"...)
		}
	default: // dense
		pl.Each(func(k int, start, end float64, slots []int) {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendInterval(b, start, end)
			first := true
			for _, i := range byID {
				if int(i) >= len(slots) || slots[i] == 0 {
					continue
				}
				b = appendKey(b, &first, ids[i])
				b = strconv.AppendInt(b, int64(slots[i]), 10)
			}
			b = append(b, "}}"...)
		})
	}
	b = append(b, `],"completions":{`...)
	b = appendIDFloats(b, ids, byID, pl.Completions)
	return append(b, "}}"...)
}

// appendIDFloats writes the members "id":value of a JSON object, in
// byID's order (encoding/json's for a map), for the jobs that have a value
// (index below len(values)).
func appendIDFloats(b []byte, ids []string, byID []int32, values []float64) []byte {
	first := true
	for _, i := range byID {
		if int(i) >= len(values) {
			continue
		}
		b = appendKey(b, &first, ids[i])
		b = appendJSONFloat(b, values[i])
	}
	return b
}

// appendKey writes a JSON object member's key and colon, after a comma
// unless it is the object's first member (first is then cleared).
func appendKey(b []byte, first *bool, id string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = appendJSONString(b, id)
	return append(b, ':')
}

// appendInterval opens an interval up to its slots' first key.
func appendInterval(b []byte, start, end float64) []byte {
	b = append(b, `{"start":`...)
	b = appendJSONFloat(b, start)
	b = append(b, `,"end":`...)
	b = appendJSONFloat(b, end)
	return append(b, `,"slots":{`...)
}

// checkFiniteResult is checkFinite on the response newSolveResponse would
// build from res: the same field named for the same numbers.
func checkFiniteResult(res *solver.Result, explain bool, enc string) error {
	field := ""
	if nonFinite(res.Value) || nonFinite(res.Mean) {
		field = "objective"
	} else {
		n := len(res.Allocations)
		if enc != planNone {
			for _, iv := range res.Plan.Intervals {
				if nonFinite(iv.Start) || nonFinite(iv.End) {
					field = "jobs"
					break
				}
			}
		}
		for i, c := range res.Plan.Completions {
			if i < n && nonFinite(c) {
				field = "jobs"
			}
		}
		if explain {
			for _, c := range res.Candidates {
				if nonFinite(c.Value) {
					field = "objective"
				}
			}
			for i, f := range res.FairShares {
				if i < n && nonFinite(f) {
					field = "jobs"
				}
			}
		}
	}
	return overflowError(field)
}

// appendJSONString appends s quoted as encoding/json writes it (HTML
// characters escaped, invalid UTF-8 replaced): plain printable ASCII
// directly, anything else through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends a finite f as encoding/json writes a float64:
// the shortest representation, in exponent form below 1e-6 and from 1e21
// on, with a one-digit negative exponent unpadded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
