package httpapi

import (
	"bytes"
	"encoding/json"
)

// Unexported functions the external tests compare with encoding/json.
var (
	DecodeStrict     = decodeStrict
	DecodeStrictWalk = decodeStrictWalk
	StrictScan       = strictScan
	// EpochResponseUnwritten is the server's epoch answer: plans left to
	// be written when encoded (Plan.src).
	EpochResponseUnwritten = newEpochResponse
)

// ErrorFields returns the fields an *apiError names, nil for any other
// error.
func ErrorFields(err error) []FieldProblem {
	if ae, ok := err.(*apiError); ok {
		return ae.fields
	}
	return nil
}

// DecodeStrictWalkStd is decodeStrictWalk with the walk reading
// encoding/json's tokens: the oracle of the walk on goccy/go-json's.
func DecodeStrictWalkStd(body []byte, v any, maxItems map[string]int) error {
	return decodeStrictWalkWith(body, v, maxItems, stdTokens)
}

func stdTokens(body []byte) tokenSource {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return dec
}

// WithPlans is r with every phase's plan in encoding enc (?plan=).
func WithPlans(r *EpochResponse, enc string) *EpochResponse { return r.withPlans(enc) }
