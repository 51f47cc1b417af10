// Package epochlog reads flexd's epoch log, the JSON Lines export of GET
// /v1/clusters/{cluster}/epochs.jsonl (one epoch request body per line,
// with "cluster" added), and does two things with it: Replay re-decides
// every logged epoch under other policies with epoch.Decide, and
// Reconstruct recovers the workload behind the log (each job's arrival,
// work and bounds when first seen) for a closed-loop simulation.
//
// Lines are decoded with the HTTP layer's wire types and converted with the
// same EpochRequest.Domain the server uses, so a line means here exactly
// what it meant to the server. The package is pure: it reads an io.Reader
// and never touches files, clocks or randomness.
package epochlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/httpapi"
)

// MaxLine caps one line of the log. The server refuses bodies over 8 MiB
// by default; twice that leaves room for a server configured higher
// without letting a corrupt file (no newlines) exhaust memory.
const MaxLine = 16 << 20

// Entry is one decoded line of the log.
type Entry struct {
	// Line is the 1-based line number in the input, for messages.
	Line int
	// Cluster is the line's "cluster" member; empty when the line has none
	// (a hand-written single-cluster log).
	Cluster string
	// Request is the line as the server read it.
	Request epoch.Request
}

// LineError is a problem with one line of the log.
type LineError struct {
	// Line is the 1-based line number.
	Line int
	// Err says what is wrong.
	Err error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying problem.
func (e *LineError) Unwrap() error { return e.Err }

// ErrOrder marks a log whose epochs are not consecutive per cluster:
// an epoch repeated, going back, or (for Read) one missing in between.
var ErrOrder = errors.New("epochs out of order")

// ErrGap marks a log with a missing epoch, which Read refuses and
// ReadAllowingGaps accepts; an error that is ErrGap is ErrOrder too.
var ErrGap = errors.New("an epoch is missing")

// gapError is the order error of a gap: it is both ErrOrder and ErrGap.
type gapError struct{ msg string }

func (e gapError) Error() string { return e.msg }

// Is reports whether target is ErrOrder or ErrGap.
func (e gapError) Is(target error) bool { return target == ErrOrder || target == ErrGap }

// Read decodes a whole log. Each non-blank line must be one JSON object
// matching httpapi.EpochRequest exactly (unknown fields are errors, as on
// the server) and a valid request (epoch.Validate with the default limits,
// which Decide applies too). Per cluster, epoch numbers must go up by
// exactly one from line to line: a repeated or decreasing epoch, or a gap,
// is an error wrapping ErrOrder that names both lines' epochs, because a
// replay across a gap would carry the cluster state (OMO's averages) over
// epochs it never saw. Every error is a *LineError; a gap's wraps ErrGap.
func Read(r io.Reader) ([]Entry, error) {
	return read(r, false)
}

// ReadAllowingGaps is Read accepting gaps: per cluster, epochs must still
// increase from line to line, but may skip numbers, as the server accepts
// them (posting epochs 1, 3 and 7 answers 200 each, and the server decides
// each from the state the previous stored epoch left). Replay carries the
// state across a gap the same way, and its report lists the gaps (Gaps).
func ReadAllowingGaps(r io.Reader) ([]Entry, error) {
	return read(r, true)
}

func read(r io.Reader, allowGaps bool) ([]Entry, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	type last struct {
		epoch int64
		line  int
	}
	seen := map[string]last{}
	var out []Entry
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err == io.EOF && line == nil {
			return out, nil
		}
		if err != nil && err != io.EOF {
			return nil, &LineError{Line: n, Err: err}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, derr := decodeLine(line)
		if derr != nil {
			return nil, &LineError{Line: n, Err: derr}
		}
		e.Line = n
		if prev, ok := seen[e.Cluster]; ok {
			got := e.Request.Epoch
			switch {
			case got == prev.epoch:
				return nil, &LineError{Line: n, Err: fmt.Errorf("%w: cluster %q: epoch %d repeats line %d's", ErrOrder, e.Cluster, got, prev.line)}
			case got < prev.epoch:
				return nil, &LineError{Line: n, Err: fmt.Errorf("%w: cluster %q: epoch %d after epoch %d (line %d): epochs must increase", ErrOrder, e.Cluster, got, prev.epoch, prev.line)}
			case got > prev.epoch+1 && !allowGaps:
				return nil, &LineError{Line: n, Err: gapError{fmt.Sprintf("%v: cluster %q: epoch %d after epoch %d (line %d): %s missing", ErrOrder, e.Cluster, got, prev.epoch, prev.line, missing(prev.epoch, got))}}
			}
		}
		seen[e.Cluster] = last{epoch: e.Request.Epoch, line: n}
		out = append(out, e)
		if err == io.EOF {
			return out, nil
		}
	}
}

// missing names the epochs strictly between a and b.
func missing(a, b int64) string {
	if b-a == 2 {
		return fmt.Sprintf("epoch %d is", a+1)
	}
	return fmt.Sprintf("epochs %d to %d are", a+1, b-1)
}

// readLine returns the next line without its newline; io.EOF comes with
// the last line when it has no newline, or alone (nil line) at the end.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > MaxLine {
			return nil, fmt.Errorf("line longer than %d bytes", MaxLine)
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte{'\n'}), []byte{'\r'}), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(buf) == 0 {
				return nil, io.EOF
			}
			return buf, io.EOF
		default:
			return nil, fmt.Errorf("reading the log: %w", err)
		}
	}
}

// decodeLine decodes and validates one line as the server decodes a body.
func decodeLine(line []byte) (Entry, error) {
	var wire httpapi.EpochRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wire); err != nil {
		return Entry{}, fmt.Errorf("not an epoch request: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Entry{}, errors.New("not an epoch request: data after the JSON object")
	}
	req := wire.Domain()
	if fes := epoch.Validate(req, epoch.Limits{}); len(fes) > 0 {
		msgs := make([]string, len(fes))
		for i, fe := range fes {
			msgs[i] = fe.Field + ": " + fe.Message
		}
		return Entry{}, fmt.Errorf("epoch %d is not a valid request: %s", req.Epoch, strings.Join(msgs, "; "))
	}
	return Entry{Cluster: wire.Cluster, Request: req}, nil
}
