package store

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInvalid: a record or token that no backend can store (empty cluster,
// malformed JSON, duplicate allocation). It is the caller's bug, not the
// client's: the API validates requests before they get here.
var ErrInvalid = errors.New("invalid")

// Page sizes for Query.Limit.
const (
	// DefaultLimit is the page size when Query.Limit is zero or negative.
	DefaultLimit = 100
	// MaxLimit is the largest page a list returns.
	MaxLimit = 1000
)

// PageSize is Limit with its documented defaults applied: DefaultLimit when
// zero or negative, at most MaxLimit. Both backends use it so paging agrees.
func (q Query) PageSize() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

// Validate reports why the record cannot be stored, wrapping ErrInvalid, or
// nil. Both backends call it first, so they reject the same records (the
// PostgreSQL schema would reject most of these anyway, less legibly).
func (r Record) Validate() error {
	switch {
	case r.Cluster == "":
		return fmt.Errorf("%w: empty cluster", ErrInvalid)
	case r.Epoch < 0:
		return fmt.Errorf("%w: negative epoch %d", ErrInvalid, r.Epoch)
	case r.RequestHash == "":
		return fmt.Errorf("%w: empty request hash", ErrInvalid)
	case r.DecisionID == "":
		return fmt.Errorf("%w: empty decision id", ErrInvalid)
	case !looksLikeObject(r.Request):
		return fmt.Errorf("%w: request is not a JSON object", ErrInvalid)
	case !looksLikeObject(r.Decision):
		return fmt.Errorf("%w: decision is not a JSON object", ErrInvalid)
	case r.State != nil && !looksLikeObject(r.State):
		return fmt.Errorf("%w: state is not a JSON object", ErrInvalid)
	}
	type key struct{ job, phase string }
	seen := make(map[key]bool, len(r.Allocations))
	for _, a := range r.Allocations {
		k := key{a.JobID, a.Phase}
		if seen[k] {
			return fmt.Errorf("%w: duplicate allocation for job %q phase %q", ErrInvalid, a.JobID, a.Phase)
		}
		seen[k] = true
	}
	return nil
}

// looksLikeObject is the cheap check of a record's JSON: it is delimited
// as an object. The bodies come from flexd's own encoder (or its decoder,
// for requests) a moment before; rescanning the ~100 KB of an epoch of 200
// jobs with json.Valid to prove it again cost about a millisecond per save.
// What this catches is the caller's bug of passing a fragment or nothing.
// (PostgreSQL stores the bodies as text, not json, since migration 00002:
// parsing them there was a fifth of its CPU per save. The encoders that
// write them are tested against encoding/json.)
func looksLikeObject(m json.RawMessage) bool {
	i, j := 0, len(m)
	for i < j && isSpace(m[i]) {
		i++
	}
	for j > i && isSpace(m[j-1]) {
		j--
	}
	return j-i >= 2 && m[i] == '{' && m[j-1] == '}'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Validate reports why the token cannot be stored, wrapping ErrInvalid.
func (t Token) Validate() error {
	switch {
	case t.Hash == "":
		return fmt.Errorf("%w: empty token hash", ErrInvalid)
	case !t.Admin && t.Cluster == "":
		return fmt.Errorf("%w: a non-admin token needs a cluster", ErrInvalid)
	case !t.Expires.IsZero() && !t.Created.IsZero() && !t.Expires.After(t.Created):
		return fmt.Errorf("%w: the token expires before it is created", ErrInvalid)
	}
	return nil
}
