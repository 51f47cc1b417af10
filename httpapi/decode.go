package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	gojson "github.com/goccy/go-json"
)

// decodeStrict decodes exactly one JSON value from body into v, rejecting
// unknown fields and trailing data. Errors are *apiError: 400 with the
// field's JSON path for a wrong type, an unknown field or a number out of
// range, 400 with the offset for malformed JSON, and 413 (through
// *http.MaxBytesError) when the body is over the limit.
func decodeStrict(body []byte, v any) error { return decodeStrictLimited(body, v, nil) }

// decodeStrictLimited is decodeStrict that first walks the body's tokens
// against v's type, stricter than encoding/json: a key must match its
// field's name exactly (encoding/json folds case) and appear once in its
// object (encoding/json keeps the last), and an array at a path of
// maxItems ("jobs", "tasks") may hold at most that many elements: the
// walk stops at the first element past the limit (422 naming the path),
// before anything is decoded.
//
// The walk's fast path (strictScan) reads bytes instead of tokens: when it
// finds nothing the walk would and the decode then succeeds, that is the
// answer; otherwise v is zeroed and the walk and decode run as before, so
// every error stays theirs.
func decodeStrictLimited(body []byte, v any, maxItems map[string]int) error {
	if strictScan(body, reflect.TypeOf(v), maxItems) {
		if decodeOnce(body, v) {
			return nil
		}
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
			rv.Elem().SetZero()
		}
	}
	return decodeStrictWalk(body, v, maxItems)
}

// decodeStrictWalk is decodeStrictLimited without its fast path: the
// token walk, then the decode.
func decodeStrictWalk(body []byte, v any, maxItems map[string]int) error {
	return decodeStrictWalkWith(body, v, maxItems, walkTokens)
}

// decodeStrictWalkWith is decodeStrictWalk with the walk's tokens read by
// tokens (tests compare walkTokens with encoding/json's).
func decodeStrictWalkWith(body []byte, v any, maxItems map[string]int, tokens func([]byte) tokenSource) error {
	pre := walker{dec: tokens(body), strict: true, maxItems: maxItems}
	pre.value(reflect.TypeOf(v), "")
	if pre.hit {
		if pre.status == http.StatusUnprocessableEntity {
			return &apiError{status: pre.status, detail: "the request is over a limit", fields: []FieldProblem{pre.found}}
		}
		return &apiError{status: http.StatusBadRequest, detail: "the body does not match the request schema", fields: []FieldProblem{pre.found}}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		off := dec.InputOffset()
		if _, terr := dec.Token(); terr != io.EOF {
			return &apiError{status: http.StatusBadRequest, detail: fmt.Sprintf("malformed JSON at byte %d: data after the top-level value", off)}
		}
		return nil
	}
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return &apiError{status: http.StatusBadRequest, detail: "the body is empty; a JSON object is expected"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &apiError{status: http.StatusBadRequest, detail: "malformed JSON: the body ends in the middle of a value"}
	case errors.As(err, &se):
		return &apiError{status: http.StatusBadRequest, detail: fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, se)}
	}
	// A type error, an unknown field or a number out of range: walk the
	// tokens against v's type to name the field by its full path, indexes
	// included, which encoding/json's own errors leave out.
	if fp, ok := locate(body, reflect.TypeOf(v), tokens); ok {
		return &apiError{status: http.StatusBadRequest, detail: "the body does not match the request schema", fields: []FieldProblem{fp}}
	}
	return &apiError{status: http.StatusBadRequest, detail: "the body does not match the request schema: " + err.Error()}
}

// decodeOnce decodes body into v as decodeStrictLimited's slow path does
// (unknown fields refused, nothing after the value) and reports whether
// that succeeded.
//
// It decodes with goccy/go-json, not encoding/json: faster on these
// bodies (docs/request-cost.md), and alike on every body strictScan lets through
// (FuzzStrictScan and TestStrictScanAgreesWithWalk compare the two paths,
// values and errors). Unknown fields need no decoder option: strictScan
// has refused them. Trailing data after the value is an error for
// Unmarshal as for encoding/json's decoder.
func decodeOnce(body []byte, v any) bool {
	return gojson.Unmarshal(body, v) == nil
}

// readBody reads the whole (already size-limited) body, into a buffer of
// the declared length when there is one (up to DefaultBodyLimit; limitBody
// has refused lengths over the configured limit) rather than growing one
// by doubling.
func readBody(r *http.Request) ([]byte, error) {
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		return nil, err
	}
	if enc := r.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		// A compressed body read as JSON would fail as garbage, or worse,
		// not fail: say what is wrong instead.
		return nil, &apiError{status: http.StatusUnsupportedMediaType, detail: fmt.Sprintf("Content-Encoding %q is not supported: send the body uncompressed", enc)}
	}
	size := bytes.MinRead
	if r.ContentLength > 0 && r.ContentLength <= DefaultBodyLimit {
		// The extra MinRead is where the read that sees EOF goes.
		size += int(r.ContentLength)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(r.Body)
	b := buf.Bytes()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, err
		}
		return nil, &apiError{status: http.StatusBadRequest, detail: "reading the body failed", err: err}
	}
	return b, nil
}

// checkContentType refuses a body that does not say it is JSON
// (application/json, or a +json type), with 415: a browser's cross-site
// "simple" POST (text/plain, a form) never reaches a handler.
func checkContentType(ct string) error {
	if ct == "" {
		return &apiError{status: http.StatusUnsupportedMediaType, detail: "Content-Type is missing: send the body as application/json"}
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return &apiError{status: http.StatusUnsupportedMediaType, detail: fmt.Sprintf("Content-Type %q is not supported: send the body as application/json", ct)}
	}
	return nil
}

// locate walks body's tokens against type t and returns the first field
// that encoding/json would reject. It mirrors encoding/json's matching of
// object keys to struct fields (exact json tag first, then case-insensitive)
// so it never blames a field the decoder accepted.
func locate(body []byte, t reflect.Type, tokens func([]byte) tokenSource) (FieldProblem, bool) {
	w := walker{dec: tokens(body)}
	w.value(t, "")
	return w.found, w.hit
}

// tokenSource is what the walker reads: a json.Decoder's Token and More.
type tokenSource interface {
	Token() (json.Token, error)
	More() bool
}

// walkTokens is the walker's token source for body: goccy/go-json's
// decoder, numbers as json.Number. Its tokens are encoding/json's types
// and it reads them three times as fast as json.Decoder.Token, which
// matters because every body strictScan refuses is walked. The walk with
// encoding/json's tokens is the test oracle (FuzzStrictScan).
func walkTokens(body []byte) tokenSource {
	dec := gojson.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return dec
}

type walker struct {
	dec   tokenSource
	found FieldProblem
	hit   bool
	// broken stops the walk at the first problem or token error.
	broken bool
	// strict refuses what encoding/json lets through: a key in another
	// case than its field's name, a key twice in one object.
	strict bool
	// maxItems bounds the arrays at these paths; status is 422 when one
	// is over its bound (400 for every other problem).
	maxItems map[string]int
	status   int
}

func (w *walker) fail(path, format string, args ...any) {
	if w.broken {
		return
	}
	w.broken, w.hit = true, true
	if path == "" {
		path = "(body)"
	}
	w.found = FieldProblem{Field: path, Message: fmt.Sprintf(format, args...)}
}

func (w *walker) token() (json.Token, bool) {
	tok, err := w.dec.Token()
	if err != nil {
		w.broken = true
		return nil, false
	}
	return tok, true
}

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// value consumes one JSON value that should decode into t.
func (w *walker) value(t reflect.Type, path string) {
	if w.broken {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType || t.Kind() == reflect.Interface {
		w.skip()
		return
	}
	tok, ok := w.token()
	if !ok {
		return
	}
	if tok == nil { // null leaves the Go value alone
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if d, isDelim := tok.(json.Delim); !isDelim || d != '{' {
			w.fail(path, "must be an object, got %s", describe(tok))
			w.skipRest(tok)
			return
		}
		w.object(t, path)
	case reflect.Map:
		if d, isDelim := tok.(json.Delim); !isDelim || d != '{' {
			w.fail(path, "must be an object, got %s", describe(tok))
			return
		}
		keys := map[string]bool{}
		for !w.broken && w.dec.More() {
			k, ok := w.token()
			if !ok {
				return
			}
			key := k.(string)
			if w.strict && keys[key] {
				w.fail(join(path, key), "duplicate key: each may appear once")
				return
			}
			keys[key] = true
			w.value(t.Elem(), join(path, key))
		}
		w.token() // '}'
	case reflect.Slice, reflect.Array:
		if d, isDelim := tok.(json.Delim); !isDelim || d != '[' {
			w.fail(path, "must be an array, got %s", describe(tok))
			return
		}
		limit, bounded := w.maxItems[path]
		for i := 0; !w.broken && w.dec.More(); i++ {
			if bounded && i >= limit {
				w.fail(path, "must hold at most %d items", limit)
				w.status = http.StatusUnprocessableEntity
				return
			}
			w.value(t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
		w.token() // ']'
	case reflect.String:
		if _, ok := tok.(string); !ok {
			w.fail(path, "must be a string, got %s", describe(tok))
		}
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			w.fail(path, "must be true or false, got %s", describe(tok))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := tok.(json.Number)
		if !ok {
			w.fail(path, "must be an integer, got %s", describe(tok))
			return
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			if errors.Is(err, strconv.ErrRange) {
				w.fail(path, "integer %s is out of range", n)
			} else {
				w.fail(path, "must be an integer, got %s", n)
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := tok.(json.Number)
		if !ok {
			w.fail(path, "must be a non-negative integer, got %s", describe(tok))
			return
		}
		if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
			w.fail(path, "must be a non-negative integer in range, got %s", n)
		}
	case reflect.Float32, reflect.Float64:
		n, ok := tok.(json.Number)
		if !ok {
			w.fail(path, "must be a number, got %s", describe(tok))
			return
		}
		if _, err := strconv.ParseFloat(string(n), t.Bits()); err != nil {
			w.fail(path, "number %s is out of range for a float%d", n, t.Bits())
		}
	default:
		w.skipRest(tok)
	}
}

// object consumes an object's members after its '{' against struct t.
func (w *walker) object(t reflect.Type, path string) {
	var seen map[string]bool
	if w.strict {
		seen = map[string]bool{}
	}
	for !w.broken && w.dec.More() {
		k, ok := w.token()
		if !ok {
			return
		}
		key := k.(string)
		ft, exact, known := fieldType(t, key)
		switch {
		case !known:
			w.fail(join(path, key), "unknown field")
			return
		case w.strict && !exact:
			w.fail(join(path, key), "unknown field (field names are case-sensitive)")
			return
		case w.strict && seen[key]:
			w.fail(join(path, key), "duplicate field: each may appear once")
			return
		}
		if seen != nil {
			seen[key] = true
		}
		w.value(ft, join(path, key))
	}
	w.token() // '}'
}

// fieldType finds the type of the struct field key decodes into, the way
// encoding/json does: exact tag name first, then case-insensitive (exact
// says which matched).
func fieldType(t reflect.Type, key string) (ft reflect.Type, exact, known bool) {
	var fold reflect.Type
	for _, f := range jsonFields(t) {
		if f.name == key {
			return f.typ, true, true
		}
		if fold == nil && strings.EqualFold(f.name, key) {
			fold = f.typ
		}
	}
	return fold, false, fold != nil
}

// jsonField is a struct field as encoding/json names it.
type jsonField struct {
	name string
	typ  reflect.Type
}

// fieldLists caches jsonFields by struct type: the walker asks for every
// key of a body, and reading the tags each time was much of its cost.
var fieldLists sync.Map // reflect.Type -> []jsonField

// jsonFields lists struct t's exported fields by JSON name, in order,
// those tagged "-" left out; a field without a tag name has its Go name,
// so no name is empty. The walker and strictScan's shapes both read it.
func jsonFields(t reflect.Type) []jsonField {
	if fs, ok := fieldLists.Load(t); ok {
		return fs.([]jsonField)
	}
	var fs []jsonField
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs = append(fs, jsonField{name, f.Type})
	}
	fieldLists.Store(t, fs)
	return fs
}

// skip consumes one whole value.
func (w *walker) skip() {
	tok, ok := w.token()
	if ok {
		w.skipRest(tok)
	}
}

// skipRest consumes the rest of a value whose first token was tok.
func (w *walker) skipRest(tok json.Token) {
	d, ok := tok.(json.Delim)
	if !ok || (d != '{' && d != '[') {
		return
	}
	for depth := 1; depth > 0 && !w.broken; {
		t, ok := w.token()
		if !ok {
			return
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		if len(v) > 20 {
			v = v[:20] + "..."
		}
		return fmt.Sprintf("the string %q", v)
	case bool:
		return fmt.Sprintf("%v", v)
	case json.Number:
		return "the number " + string(v)
	}
	return "null"
}
