package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/flexd/flexd/ratio"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/store"
)

// Problem is an RFC 9457 problem details body (application/problem+json).
type Problem struct {
	// Type is a URI naming the problem kind; "about:blank" means the
	// status code says it all.
	Type string `json:"type" example:"about:blank" validate:"required"`
	// Title is the status code's text.
	Title string `json:"title" example:"Unprocessable Entity" validate:"required"`
	// Status repeats the HTTP status code.
	Status int `json:"status" example:"422" validate:"required"`
	// Detail explains this occurrence for a person.
	Detail string `json:"detail,omitempty" example:"the request breaks 2 rules"`
	// Instance is the request path.
	Instance string `json:"instance,omitempty" example:"/v1/solve"`
	// RequestID is the request's X-Request-Id, for finding it in the logs.
	RequestID string `json:"request_id,omitempty" example:"0193a1b2-..."`
	// Errors lists every field problem (400 and 422).
	Errors []FieldProblem `json:"errors,omitempty"`
}

// FieldProblem is one problem with one field, located by its JSON path.
type FieldProblem struct {
	Field   string `json:"field" example:"jobs[3].sla[1].deadline" validate:"required"`
	Message string `json:"message" example:"SLA deadlines must be strictly increasing: 5 after 9" validate:"required"`
}

// apiError is an error the edge answers with a known status. Handlers
// return it (or a domain error the table below maps) to problem().
type apiError struct {
	status int
	detail string
	fields []FieldProblem
	// err is the cause, logged for 5xx and never echoed.
	err error
}

func (e *apiError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("%d %s: %v", e.status, e.detail, e.err)
	}
	return fmt.Sprintf("%d %s", e.status, e.detail)
}

func (e *apiError) Unwrap() error { return e.err }

var (
	errNotFound     = &apiError{status: http.StatusNotFound, detail: "no such resource"}
	errUnauthorized = &apiError{status: http.StatusUnauthorized, detail: "a valid bearer token is required"}
	errRateLimited  = &apiError{status: http.StatusTooManyRequests, detail: "over this token's rate limit; retry later"}
	errShuttingDown = &apiError{status: http.StatusServiceUnavailable, detail: "flexd is shutting down; retry on another replica"}
)

// StatusClientClosed is the status recorded (nginx's 499) for a request
// whose client disconnected before the answer; its metric label is
// "client_closed".
const StatusClientClosed = 499

// errorStatus is the one table mapping domain errors to HTTP status codes
// and the detail shown to the caller. Order matters: the first match wins.
var errorStatus = []struct {
	target error
	status int
	detail string
}{
	{store.ErrNotFound, http.StatusNotFound, "no such resource"},
	{store.ErrConflict, http.StatusConflict, "this epoch is stored with a different request, or is below the cluster's latest epoch"},
	{store.ErrStaleState, http.StatusConflict, "the cluster's state kept changing concurrently; retry the epoch"},
	{context.DeadlineExceeded, http.StatusGatewayTimeout, "the request took longer than the server's timeout"},
	{solver.ErrCanceled, http.StatusGatewayTimeout, "the solve took longer than the server's timeout and was stopped; policy \"optimal\" is exhaustive: choose flex for large problems"},
	{store.ErrUnavailable, http.StatusServiceUnavailable, "history is unavailable for now (the database is away and the local spool cannot take more); retry shortly"},
}

// validationErrors are the rest of the table: the domain packages' "the
// body breaks a rule" errors, each answered with 422 and every problem at
// its wire path. solver and epoch report *solver.ValidationError; ratio
// and plan (POST /v1/plan/slot-config) report *ratio.ValidationError.
var validationErrors = []func(error) ([]FieldProblem, bool){
	func(err error) ([]FieldProblem, bool) {
		var ve *solver.ValidationError
		if !errors.As(err, &ve) {
			return nil, false
		}
		fields := make([]FieldProblem, len(ve.Problems))
		for i, p := range ve.Problems {
			fields[i] = fieldProblem(p.Field, p.JobID, p.Message)
		}
		return fields, true
	},
	func(err error) ([]FieldProblem, bool) {
		var ve *ratio.ValidationError
		if !errors.As(err, &ve) {
			return nil, false
		}
		fields := make([]FieldProblem, len(ve.Problems))
		for i, p := range ve.Problems {
			fields[i] = fieldProblem(p.Field, p.JobID, p.Message)
		}
		return fields, true
	},
}

// fieldProblem names the job in the message when there is one: the path
// gives its index, the id is what the caller knows it by.
func fieldProblem(field, jobID, message string) FieldProblem {
	if jobID != "" {
		message = fmt.Sprintf("job %q: %s", jobID, message)
	}
	return FieldProblem{Field: field, Message: message}
}

// toAPIError classifies err: an *apiError as is, a validation error as 422
// with every field listed, a body over the limit as 413, a table entry as
// its status, anything else as a 500 whose cause is logged, not shown.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	for _, problems := range validationErrors {
		if fields, ok := problems(err); ok {
			return &apiError{status: http.StatusUnprocessableEntity, detail: fmt.Sprintf("the request breaks %d rule(s)", len(fields)), fields: fields}
		}
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &apiError{status: http.StatusRequestEntityTooLarge, detail: fmt.Sprintf("the body is over the limit of %d bytes", mbe.Limit)}
	}
	for _, e := range errorStatus {
		if errors.Is(err, e.target) {
			return &apiError{status: e.status, detail: e.detail, err: err}
		}
	}
	return &apiError{status: http.StatusInternalServerError, detail: "internal error; quote the request id when reporting it", err: err}
}

// problem writes err as problem+json. Server errors are logged with the
// request id and their cause; the caller sees only the generic detail.
func (s *Server) problem(w http.ResponseWriter, r *http.Request, err error) {
	rid := requestIDFrom(r.Context())
	if errors.Is(r.Context().Err(), context.Canceled) {
		// The client disconnected mid-request, so whatever failed failed
		// because of it (a store call cancelled with the context): not a
		// server error to log or count as one. Nobody reads the answer;
		// the status is for observe's metric and access log.
		s.log.DebugContext(r.Context(), "client closed the request", "request_id", rid, "method", r.Method, "path", r.URL.Path, "error", err)
		w.WriteHeader(StatusClientClosed)
		return
	}
	ae := toAPIError(err)
	if ae.status >= 500 && ae.status != http.StatusServiceUnavailable {
		s.log.ErrorContext(r.Context(), "request failed", "request_id", rid, "method", r.Method, "path", r.URL.Path, "status", ae.status, "error", err)
	}
	p := Problem{
		Type:      "about:blank",
		Title:     http.StatusText(ae.status),
		Status:    ae.status,
		Detail:    ae.detail,
		Instance:  r.URL.Path,
		RequestID: rid,
		Errors:    ae.fields,
	}
	switch ae.status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="flexd"`)
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
	}
	s.writeJSON(w, r, ae.status, "application/problem+json", p)
}

// writeJSON encodes v before writing anything, so an encoding failure can
// still become a clean 500 instead of a truncated body.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.log.ErrorContext(r.Context(), "encoding response", "request_id", requestIDFrom(r.Context()), "error", err)
		status, contentType = http.StatusInternalServerError, "application/problem+json"
		b = fmt.Appendf(nil, `{"type":"about:blank","title":"Internal Server Error","status":500,"request_id":%q}`, requestIDFrom(r.Context()))
	}
	s.writeRaw(w, r, status, contentType, b)
}

// writeRaw writes b and a newline. b is not appended to: it may be a
// stored decision that other requests are writing too. The length is
// declared, so a large answer is not chunked.
func (s *Server) writeRaw(w http.ResponseWriter, r *http.Request, status int, contentType string, b []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, err := w.Write(b)
	if err == nil {
		_, err = io.WriteString(w, "\n")
	}
	if err != nil {
		// The client went away; nothing to answer, but keep a trace.
		s.log.DebugContext(r.Context(), "writing response", "request_id", requestIDFrom(r.Context()), "error", err)
	}
}
