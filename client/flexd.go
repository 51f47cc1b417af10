package client

// The hand-written convenience layer over the generated client
// (flexd.gen.go): the bearer token, and an epoch retried with the same body.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// BearerToken is a request editor that sends token as
// "Authorization: Bearer TOKEN" (a token as `flexd token create` prints
// it). Pass it to one call when tokens differ per cluster; an empty token
// sends no header.
func BearerToken(token string) RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return nil
	}
}

// WithToken sends token as the bearer token on every request of the
// client.
func WithToken(token string) ClientOption {
	return WithRequestEditorFn(BearerToken(token))
}

// Retry says how DecideEpochRetrying retries an epoch.
type Retry struct {
	// Attempts is how many times the body is posted at most (default 3).
	Attempts int
	// Timeout bounds each attempt (0: only ctx bounds it). An attempt that
	// runs out is retried: the server may have stored the decision, and
	// the same body then gets it back.
	Timeout time.Duration
	// Backoff is the wait before the second attempt, doubled before each
	// later one (default 100 ms); a Retry-After on a 429 or 503 is honoured
	// instead, up to MaxBackoff.
	Backoff time.Duration
	// MaxBackoff caps any wait (default 5 s).
	MaxBackoff time.Duration
}

// Decision is an epoch's answer after DecideEpochRetrying.
type Decision struct {
	// DecideEpochHTTPResponse is the last attempt's answer (its JSON200 is
	// the decision when the status is 200; the problem fields say why
	// not).
	*DecideEpochHTTPResponse
	// Attempts is how many times the body was posted.
	Attempts int
}

// Replay reports whether the answer is a stored decision returned again
// (Idempotent-Replay: true): an earlier attempt, or another shim, had
// posted the same epoch with the same body.
func (d *Decision) Replay() bool {
	return d != nil && d.HTTPResponse != nil && d.HTTPResponse.Header.Get("Idempotent-Replay") == "true"
}

// StatusCode is the last attempt's HTTP status.
func (d *Decision) StatusCode() int {
	if d == nil || d.DecideEpochHTTPResponse == nil {
		return 0
	}
	return d.DecideEpochHTTPResponse.StatusCode()
}

// DecideEpochRetrying posts one epoch of cluster and, when an attempt gets
// no answer (a transport error or its Timeout) or a 429 or 503, posts the
// very same bytes again, as the contract's idempotent retry wants: a
// decision the server stored is returned again with Idempotent-Replay:
// true, never decided twice. body is the epoch's JSON ([]byte or
// json.RawMessage, sent as is) or a value marshalled once (an
// EpochRequest). Any other answer, 2xx or not, is returned at once with a
// nil error; the error is the last attempt's when all of them failed
// without an answer, or ctx's.
func (c *ClientWithResponses) DecideEpochRetrying(ctx context.Context, cluster string, params *DecideEpochParams, body any, r Retry, reqEditors ...RequestEditorFn) (*Decision, error) {
	var raw []byte
	switch b := body.(type) {
	case []byte:
		raw = b
	case json.RawMessage:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("encoding the epoch: %w", err)
		}
	}
	attempts := r.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	backoff := r.Backoff
	if backoff <= 0 {
		backoff = 100 * time.Millisecond
	}
	maxBackoff := r.MaxBackoff
	if maxBackoff <= 0 {
		maxBackoff = 5 * time.Second
	}
	var lastErr error
	var last *DecideEpochHTTPResponse
	for n := 1; ; n++ {
		resp, err := c.decideOnce(ctx, cluster, params, raw, r.Timeout, reqEditors)
		if err == nil {
			last = resp
			status := resp.StatusCode()
			if status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
				return &Decision{DecideEpochHTTPResponse: resp, Attempts: n}, nil
			}
		} else {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = err
		}
		if n == attempts {
			if err == nil {
				return &Decision{DecideEpochHTTPResponse: last, Attempts: n}, nil
			}
			return nil, fmt.Errorf("epoch not answered after %d attempts: %w", n, lastErr)
		}
		wait := backoff
		if err == nil {
			if s, perr := strconv.Atoi(resp.HTTPResponse.Header.Get("Retry-After")); perr == nil && s >= 0 {
				wait = time.Duration(s) * time.Second
			}
		}
		wait = min(wait, maxBackoff)
		backoff = min(2*backoff, maxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// decideOnce is one attempt, bounded by timeout when it is above 0.
func (c *ClientWithResponses) decideOnce(ctx context.Context, cluster string, params *DecideEpochParams, raw []byte, timeout time.Duration, reqEditors []RequestEditorFn) (*DecideEpochHTTPResponse, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	resp, err := c.DecideEpochWithBodyWithResponse(ctx, cluster, params, "application/json", bytes.NewReader(raw), reqEditors...)
	if err != nil {
		return nil, err
	}
	if resp.HTTPResponse == nil {
		return nil, errors.New("no HTTP response")
	}
	return resp, nil
}
