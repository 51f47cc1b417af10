// Package store keeps flexd's history: every epoch's request, decision,
// per-job allocations with their reasons, and each cluster's state across
// epochs; and the API tokens. Implementations: package store/memory
// (bounded, the default) and store/postgres (pgx v5 pool). Consumers define
// the interface they need; the types and errors here are shared by both.
package store

import (
	"encoding/json"
	"errors"
	"time"
)

// Errors the implementations return, so callers can map them to HTTP status
// codes without knowing the backend.
var (
	// ErrNotFound: no such epoch or token.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the (cluster, epoch) is stored with a different request,
	// or the epoch is below the cluster's latest and was never stored.
	ErrConflict = errors.New("conflict")
	// ErrStaleState: the cluster's state moved on since it was read (another
	// replica saved an epoch in between); re-read and decide again.
	ErrStaleState = errors.New("cluster state changed concurrently")
	// ErrUnavailable: the store cannot take or answer this now (its
	// database is away and the local spool is full, or cannot tell); the
	// caller may retry later.
	ErrUnavailable = errors.New("store unavailable")
)

// Record is one stored epoch.
type Record struct {
	Cluster string
	Epoch   int64
	// DecisionID is a unique id of the decision (a UUIDv7 string).
	DecisionID string
	// RequestHash is the hex SHA-256 of Request; equal hashes mean an
	// idempotent retry.
	RequestHash string
	// Request and Decision are JSON objects: the request in the API's
	// canonical form (decoded and encoded again, without "cluster") and the
	// decision as answered by default (plans delta-encoded). Backends check
	// only that they are delimited as objects, not rescan them.
	Request  json.RawMessage
	Decision json.RawMessage
	// State is the cluster's state after this epoch (OMO averages), or nil.
	State json.RawMessage
	// Allocations are the per-job, per-phase slots and reasons, queryable by
	// job id.
	Allocations []Allocation
	// CreatedAt is when the record was saved, UTC.
	CreatedAt time.Time
}

// Allocation is one job's slots in one phase of a stored decision.
type Allocation struct {
	JobID  string
	Phase  string // "map" or "reduce"
	Slots  int
	Reason string
}

// Query selects stored epochs of one cluster, newest first.
type Query struct {
	// From and To bound the epoch numbers, inclusive; nil means unbounded.
	From, To *int64
	// JobID, when set, keeps only epochs whose decision allocates to that job.
	JobID string
	// Limit caps the page size (implementations clamp it to [1, 1000]).
	Limit int
	// Before, when non-nil, is the cursor: only epochs below it.
	Before *int64
}

// State is a cluster's state as last saved: the epoch number it belongs to
// and the opaque state document (nil when the cluster has none yet).
type State struct {
	Epoch int64
	Found bool
	State json.RawMessage
}

// Start is what deciding an epoch needs from the store, read in one call:
// the cluster's state as last saved and, when this very epoch is stored
// already (an idempotent retry, or a clash), its record, so the retry is
// answered without deciding again.
type Start struct {
	State State
	// Stored is the epoch's record when it is stored, else nil.
	Stored *Record
}

// Token is a stored API token: only its hash is kept. A revoked token is
// kept too, marked, so that revoking the last token never leaves the table
// empty (which would turn access control off).
type Token struct {
	// Hash is the hex SHA-256 of the token string.
	Hash    string
	Cluster string // empty for admin tokens
	Admin   bool
	Created time.Time
	// LastUsed is when a request last presented the token, recorded at
	// most once per server token-cache lifetime; zero when never.
	LastUsed time.Time
	// Expires is when the token stops working; zero: never.
	Expires time.Time
	// Revoked is when the token was revoked; zero: it is not.
	Revoked time.Time
}

// TokenIDLen is the length of a token's ID: the first hex digits of its
// hash, enough to name it (`flexd token list`, `flexd token revoke ID`)
// and nothing a caller could authenticate with.
const TokenIDLen = 12

// ID is the token's short public name: the first TokenIDLen hex digits of
// its hash.
func (t Token) ID() string { return t.Hash[:min(len(t.Hash), TokenIDLen)] }

// Token states, as State reports them.
const (
	TokenActive  = "active"
	TokenExpired = "expired"
	TokenRevoked = "revoked"
)

// State is TokenRevoked, TokenExpired (at its expiry exactly and after)
// or TokenActive at now. Only an active token authenticates.
func (t Token) State(now time.Time) string {
	switch {
	case !t.Revoked.IsZero():
		return TokenRevoked
	case !t.Expires.IsZero() && !now.Before(t.Expires):
		return TokenExpired
	}
	return TokenActive
}

// ClusterInfo is one cluster that has saved an epoch.
type ClusterInfo struct {
	Name string
	// LastEpoch is the epoch its state was last saved at.
	LastEpoch int64
	// Updated is when that epoch was saved, UTC.
	Updated time.Time
}
