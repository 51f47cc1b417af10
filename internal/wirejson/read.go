// Package wirejson reads and writes the JSON of flexd's hot wire types (an
// epoch request and its decision, about 50 KB each for 200 jobs) without
// reflection, several times faster than encoding/json.
//
// It is a fast path beside encoding/json, never a replacement: a Reader
// gives up (Failed) at anything outside the plain JSON its callers expect,
// such as an escaped string or a type mismatch, and its callers give up
// (Fail) at keys they do not know or see twice; the caller then decodes
// the same bytes with encoding/json, whose behaviour, errors included,
// therefore stays the reference. What the
// Reader does accept it decodes exactly as encoding/json would. The append
// functions write byte for byte what encoding/json.Marshal writes. Tests
// compare both with encoding/json on generated and fuzzed input.
package wirejson

import (
	"strconv"
	"unicode/utf8"
)

// Reader reads one JSON value from a byte slice. Its methods consume the
// next value (skipping whitespace) and, on anything the fast path does not
// handle, mark the Reader failed and return zero values from then on; the
// caller checks Failed once at the end instead of after every call.
//
// A JSON null leaves a Go value at its zero value, which is what
// encoding/json does to a value it decodes into for the first time: the
// methods return zero values (nil for pointers, false from BeginObject and
// BeginArray) for null.
type Reader struct {
	buf []byte
	pos int
	bad bool
}

// NewReader returns a Reader over b, which must not change while it reads.
func NewReader(b []byte) Reader { return Reader{buf: b} }

// Failed reports whether the Reader gave up.
func (r *Reader) Failed() bool { return r.bad }

// Fail gives up: callers use it for what only they can judge, such as an
// unknown key or one seen twice.
func (r *Reader) Fail() { r.bad = true }

// AtEnd reports whether nothing but whitespace is left and the Reader has
// not failed: a body holds exactly one value.
func (r *Reader) AtEnd() bool {
	r.skipSpace()
	return !r.bad && r.pos == len(r.buf)
}

// skipSpace skips JSON whitespace.
func (r *Reader) skipSpace() {
	for r.pos < len(r.buf) {
		switch r.buf[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek returns the next non-whitespace byte, or 0 at the end or after a
// failure.
func (r *Reader) peek() byte {
	if r.bad {
		return 0
	}
	r.skipSpace()
	if r.pos == len(r.buf) {
		return 0
	}
	return r.buf[r.pos]
}

// literal consumes word (true, false, null) at the current position.
func (r *Reader) literal(word string) bool {
	if len(r.buf)-r.pos < len(word) || string(r.buf[r.pos:r.pos+len(word)]) != word {
		r.bad = true
		return false
	}
	r.pos += len(word)
	return true
}

// Null consumes a null if one is next and reports whether it did.
func (r *Reader) Null() bool {
	if r.peek() != 'n' {
		return false
	}
	return r.literal("null")
}

// BeginObject consumes the '{' of an object and reports true; a null is
// consumed and reports false; anything else fails.
func (r *Reader) BeginObject() bool { return r.begin('{') }

// BeginArray consumes the '[' of an array and reports true; a null is
// consumed and reports false; anything else fails.
func (r *Reader) BeginArray() bool { return r.begin('[') }

func (r *Reader) begin(open byte) bool {
	switch r.peek() {
	case open:
		r.pos++
		return true
	case 'n':
		r.literal("null")
		return false
	}
	r.bad = true
	return false
}

// NextMember is the loop condition over an object's members after
// BeginObject, i counting the members read so far: it consumes the ',' before
// every member but the first, or the closing '}', and reports whether a
// member follows (read its key with Key, then its value).
//
//	for i := 0; r.NextMember(i); i++ { switch string(r.Key()) { ... } }
func (r *Reader) NextMember(i int) bool { return r.next(i, '}') }

// NextElement is NextMember for an array's elements after BeginArray.
func (r *Reader) NextElement(i int) bool { return r.next(i, ']') }

func (r *Reader) next(i int, closing byte) bool {
	c := r.peek()
	switch c {
	case closing:
		r.pos++
		return false
	case 0:
		// The end of the input, or an earlier failure.
		r.bad = true
		return false
	}
	if i > 0 {
		if c != ',' {
			r.bad = true
			return false
		}
		r.pos++
		// A closing bracket right after a comma is not JSON; the value
		// reader that comes next fails on it.
	}
	return true
}

// Key reads a member's key and the ':' after it. It returns the key's bytes
// inside the Reader's buffer; keys with escapes are left to encoding/json.
func (r *Reader) Key() []byte {
	s, _ := r.plainString()
	if r.peek() != ':' {
		r.bad = true
		return nil
	}
	r.pos++
	return s
}

// plainString reads a string without escapes or control characters and
// holding valid UTF-8, returning its contents and whether it is all ASCII.
func (r *Reader) plainString() ([]byte, bool) {
	if r.peek() != '"' {
		r.bad = true
		return nil, true
	}
	start := r.pos + 1
	ascii := true
	for i := start; i < len(r.buf); i++ {
		switch c := r.buf[i]; {
		case c == '"':
			r.pos = i + 1
			s := r.buf[start:i]
			if !ascii && !utf8.Valid(s) {
				// encoding/json replaces invalid bytes; leave that to it.
				r.bad = true
				return nil, true
			}
			return s, ascii
		case c == '\\' || c < 0x20:
			r.bad = true
			return nil, true
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	r.bad = true
	return nil, true
}

// String reads a string (null: "").
func (r *Reader) String() string {
	if r.Null() {
		return ""
	}
	s, _ := r.plainString()
	return string(s)
}

// StringReusing is String, returning prev itself, without allocating, when
// the value equals it: for values most elements of an array repeat.
func (r *Reader) StringReusing(prev string) string {
	if r.Null() {
		return ""
	}
	s, _ := r.plainString()
	if string(s) == prev {
		return prev
	}
	return string(s)
}

// number reads a number token, checking JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. plain is true when it
// has neither fraction nor exponent.
func (r *Reader) number() (tok []byte, plain bool) {
	if r.peek() == 0 {
		r.bad = true
		return nil, false
	}
	b, i := r.buf, r.pos
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		r.bad = true
		return nil, false
	}
	plain = true
	if i < len(b) && b[i] == '.' {
		plain = false
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			r.bad = true
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		plain = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			r.bad = true
			return nil, false
		}
	}
	r.pos = i
	return b[start:i], plain
}

// maxPlainDigits is the most digits an integer may have for Int64 to
// convert it without overflow checks; longer ones go to encoding/json.
const maxPlainDigits = 18

// Int64 reads an integer (null: 0). A number with a fraction or an
// exponent fails, as it does in encoding/json for an integer field.
func (r *Reader) Int64() int64 {
	if r.Null() {
		return 0
	}
	tok, plain := r.number()
	if r.bad || !plain {
		r.bad = true
		return 0
	}
	neg := tok[0] == '-'
	if neg {
		tok = tok[1:]
	}
	if len(tok) > maxPlainDigits {
		r.bad = true
		return 0
	}
	var n int64
	for _, c := range tok {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n
}

// Int reads an integer into an int (null: 0).
func (r *Reader) Int() int {
	n := r.Int64()
	if int64(int(n)) != n {
		r.bad = true
		return 0
	}
	return int(n)
}

// Float64 reads a number (null: 0); one out of float64's range fails, as
// it does in encoding/json.
func (r *Reader) Float64() float64 {
	if r.Null() {
		return 0
	}
	tok, _ := r.number()
	if r.bad {
		return 0
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		r.bad = true
		return 0
	}
	return f
}

// Float64Ptr reads a number into a new float64 (null: nil).
func (r *Reader) Float64Ptr() *float64 {
	if r.Null() {
		return nil
	}
	f := r.Float64()
	return &f
}

// Bool reads true or false (null: false).
func (r *Reader) Bool() bool {
	switch r.peek() {
	case 't':
		return r.literal("true")
	case 'f':
		r.literal("false")
		return false
	case 'n':
		r.literal("null")
		return false
	}
	r.bad = true
	return false
}

// BoolPtr reads true or false into a new bool (null: nil).
func (r *Reader) BoolPtr() *bool {
	if r.Null() {
		return nil
	}
	b := r.Bool()
	return &b
}

// maxDepth bounds SkipValue's nesting, as encoding/json bounds its own.
const maxDepth = 10000

// SkipValue consumes one value of any kind, checking its syntax (escapes
// included) without decoding it.
func (r *Reader) SkipValue() {
	// open holds the unclosed brackets, innermost last.
	var stack [32]byte
	open := stack[:0]
	for !r.bad {
		// One value.
		switch r.peek() {
		case '{', '[':
			c := r.buf[r.pos]
			r.pos++
			if len(open) == maxDepth {
				r.bad = true
				return
			}
			open = append(open, c)
			closing := byte('}')
			if c == '[' {
				closing = ']'
			}
			if r.peek() == closing {
				r.pos++
				open = open[:len(open)-1]
				break
			}
			if c == '{' {
				r.skipKey()
			}
			continue
		case '"':
			r.skipString()
		case 't':
			r.literal("true")
		case 'f':
			r.literal("false")
		case 'n':
			r.literal("null")
		default:
			r.number()
		}
		// After a value: close what is complete, then go on to the next
		// element or member, if any.
		for !r.bad && len(open) > 0 {
			c, inner := r.peek(), open[len(open)-1]
			if c == ',' {
				r.pos++
				if inner == '{' {
					r.skipKey()
				}
				break
			}
			if inner == '{' && c == '}' || inner == '[' && c == ']' {
				r.pos++
				open = open[:len(open)-1]
				continue
			}
			r.bad = true
		}
		if len(open) == 0 {
			return
		}
	}
}

// skipKey consumes a member's key and its ':'.
func (r *Reader) skipKey() {
	r.skipString()
	if r.peek() != ':' {
		r.bad = true
		return
	}
	r.pos++
}

// skipString consumes a string, checking its escapes.
func (r *Reader) skipString() {
	if r.peek() != '"' {
		r.bad = true
		return
	}
	b := r.buf
	for i := r.pos + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			r.pos = i + 1
			return
		case c < 0x20:
			r.bad = true
			return
		case c == '\\':
			i++
			if i == len(b) {
				r.bad = true
				return
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					r.bad = true
					return
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						r.bad = true
						return
					}
				}
				i += 4
			default:
				r.bad = true
				return
			}
		}
	}
	r.bad = true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
