package httpapi

import (
	"encoding/binary"
	"reflect"
	"strings"
	"sync"
)

// scanShape is what strictScan knows of a Go type: for a struct, its
// fields by exact JSON name (the walker's fieldType, exact matches only),
// in the struct's order; for a slice, array or map, its element.
type scanShape struct {
	kind   reflect.Kind
	fields []scanField
	elem   *scanShape
	skip   bool // json.RawMessage or an interface: any value
	// scalar: a string, number or bool (one of those, or null, is all
	// that decodes into it).
	scalar bool
}

// scanField is one field of a struct shape. Its position in the shape's
// fields is its bit in the object's seen mask.
type scanField struct {
	name  string
	shape *scanShape
}

// field returns the index of the field named key, or -1. Encoders write a
// struct's members in its order, so the field after the previous one
// (guess) is tried first: a body of 200 jobs has some 4,000 keys, and a
// map lookup each was most of the scan's time.
func (sh *scanShape) field(key []byte, guess int) int {
	if len(key) == 0 {
		return -1 // no field's name is empty (jsonFields)
	}
	n := len(sh.fields)
	for k := range n {
		i := guess + k
		if i >= n {
			i -= n
		}
		// Members left out (omitempty) make the guess miss: the length
		// and first byte rule most fields out without a comparison.
		f := &sh.fields[i]
		if len(f.name) == len(key) && f.name[0] == key[0] && f.name == string(key) {
			return i
		}
	}
	return -1
}

// fieldAt looks for a field whose name, then a quote, is in buf at start,
// trying the fields from guess on (in the body's order, the next member's
// field comes after the previous one's), and returns its index and the
// quote's position: the key found and matched without searching for its
// end first. It returns -1 when no field from guess on matches; field,
// after the key is delimited, then has the last word.
func (sh *scanShape) fieldAt(buf []byte, start, guess int) (int, int) {
	for i := guess; i < len(sh.fields); i++ {
		name := sh.fields[i].name
		end := start + len(name)
		if end < len(buf) && buf[end] == '"' && string(buf[start:end]) == name {
			return i, end
		}
	}
	return -1, 0
}

// scanShapes caches scanShape by type; wire types are few.
var scanShapes sync.Map // reflect.Type -> *scanShape

// shapeOf returns t's shape, built once. It reports false for a struct
// with more than 64 fields (the seen mask's width), which strictScan then
// leaves to the walker.
func shapeOf(t reflect.Type) (*scanShape, bool) {
	if s, ok := scanShapes.Load(t); ok {
		sh := s.(*scanShape)
		return sh, sh != nil
	}
	sh, ok := buildShape(t, map[reflect.Type]*scanShape{})
	if !ok {
		sh = nil
	}
	scanShapes.Store(t, sh)
	return sh, ok
}

func buildShape(t reflect.Type, building map[reflect.Type]*scanShape) (*scanShape, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if sh, ok := building[t]; ok {
		return sh, true
	}
	sh := &scanShape{kind: t.Kind()}
	building[t] = sh
	switch {
	case t == rawMessageType || t.Kind() == reflect.Interface:
		sh.skip = true
	case t.Kind() == reflect.Struct:
		fields := jsonFields(t)
		if len(fields) > 64 { // the seen mask's width
			return nil, false
		}
		for _, f := range fields {
			name := f.name
			if sh.field([]byte(name), 0) >= 0 || strings.ContainsAny(name, `"\\`) {
				// A name twice (the walker takes the first), or a name
				// with a quote or backslash, which would fool fieldAt (no
				// wire type has either): left to the walker.
				return nil, false
			}
			fs, ok := buildShape(f.typ, building)
			if !ok {
				return nil, false
			}
			sh.fields = append(sh.fields, scanField{name: name, shape: fs})
		}
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map:
		es, ok := buildShape(t.Elem(), building)
		if !ok {
			return nil, false
		}
		sh.elem = es
	default:
		sh.scalar = true
	}
	return sh, true
}

// strictScan is the walk's fast path: it reports true when body holds one
// JSON value whose object keys all name fields of t exactly (no case
// folding), none twice in an object, and whose arrays at the paths of
// maxItems are within their bounds, so the walker would find no problem
// that encoding/json's decode does not also report. It reads bytes, not
// tokens, and allocates nothing but a path string per object key outside
// arrays (and a key set per JSON object decoded into a map). Anything it
// does not take (an escaped key, a value of the wrong kind, a key it does
// not know) answers false: the caller then walks the tokens, whose answer
// (and error) is the reference. It does not check syntax or scalar types:
// the decode that follows does.
func strictScan(body []byte, t reflect.Type, maxItems map[string]int) bool {
	sh, ok := shapeOf(t)
	if !ok {
		return false
	}
	s := scanner{buf: body, maxItems: maxItems}
	s.value(sh, "", true)
	return !s.bad
}

type scanner struct {
	buf      []byte
	pos      int
	bad      bool
	maxItems map[string]int
}

func (s *scanner) space() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, 0 at the end.
func (s *scanner) peek() byte {
	// Compact bodies have no space: answer those without a loop.
	if s.pos < len(s.buf) && s.buf[s.pos] > ' ' {
		return s.buf[s.pos]
	}
	s.space()
	if s.pos >= len(s.buf) {
		return 0
	}
	return s.buf[s.pos]
}

// value consumes one value that should decode into sh. path is the
// walker's path while no array has been entered (pathed), for maxItems.
func (s *scanner) value(sh *scanShape, path string, pathed bool) {
	if s.bad {
		return
	}
	c := s.peek()
	if c == 'n' { // null leaves any Go value alone
		s.literal()
		return
	}
	if sh.skip {
		s.skipValue()
		return
	}
	switch sh.kind {
	case reflect.Struct:
		if c != '{' {
			s.bad = true
			return
		}
		s.object(sh, path, pathed)
	case reflect.Map:
		if c != '{' {
			s.bad = true
			return
		}
		s.mapObject(sh)
	case reflect.Slice, reflect.Array:
		if c != '[' {
			s.bad = true
			return
		}
		s.pos++
		limit, bounded := 0, false
		if pathed && s.maxItems != nil {
			limit, bounded = s.maxItems[path]
		}
		if s.peek() == ']' {
			s.pos++
			return
		}
		for i := 0; !s.bad; i++ {
			if bounded && i >= limit {
				s.bad = true
				return
			}
			s.value(sh.elem, "", false)
			if s.afterItem(']') {
				return
			}
		}
	default:
		if c == '{' || c == '[' {
			s.bad = true
			return
		}
		s.scalar()
	}
}

// object consumes a JSON object into struct shape sh. It is the scan's
// hot loop (a 200-job epoch has some 5,000 members), so it reads with a
// local index and consumes scalar members itself.
func (s *scanner) object(sh *scanShape, path string, pathed bool) {
	buf := s.buf
	i := skipSpace(buf, s.pos+1) // past '{'
	if i < len(buf) && buf[i] == '}' {
		s.pos = i + 1
		return
	}
	var seen uint64
	next := 0
	for {
		// The key: a string without escapes (an escaped key is the
		// walker's to compare).
		if i >= len(buf) || buf[i] != '"' {
			break
		}
		start := i + 1
		k, end := sh.fieldAt(buf, start, next)
		if k < 0 {
			end = quoteOrBackslash(buf, start)
			if end >= len(buf) || buf[end] != '"' {
				break
			}
			k = sh.field(buf[start:end], next)
		}
		key := buf[start:end]
		if k < 0 || seen&(1<<k) != 0 {
			break
		}
		seen |= 1 << k
		next = k + 1
		f := &sh.fields[k]
		i = skipSpace(buf, end+1)
		if i >= len(buf) || buf[i] != ':' {
			break
		}
		i = skipSpace(buf, i+1)
		if i >= len(buf) {
			break
		}
		if f.shape.scalar {
			// Numbers, strings and literals: consumed here, without
			// value's dispatch.
			switch c := buf[i]; c {
			case '{', '[':
				s.bad = true
				return
			case '"':
				e := quoteOrBackslash(buf, i+1)
				if e < len(buf) && buf[e] == '"' {
					i = e + 1
				} else {
					s.pos = i
					s.str()
					i = s.pos
				}
			default:
				e := i
				for e < len(buf) && !delimiter[buf[e]] {
					e++
				}
				if e == i {
					s.bad = true
					return
				}
				i = e
			}
		} else {
			sub := ""
			if pathed && s.maxItems != nil && (f.shape.kind == reflect.Struct || f.shape.kind == reflect.Slice || f.shape.kind == reflect.Array) {
				sub = join(path, string(key))
			}
			s.pos = i
			s.value(f.shape, sub, pathed)
			if s.bad {
				return
			}
			i = s.pos
		}
		i = skipSpace(buf, i)
		if i >= len(buf) {
			break
		}
		switch buf[i] {
		case ',':
			i = skipSpace(buf, i+1)
			continue
		case '}':
			s.pos = i + 1
			return
		}
		break
	}
	s.bad = true
}

// skipSpace returns the index of the first byte at or after i in buf that
// is not JSON white space.
func skipSpace(buf []byte, i int) int {
	for i < len(buf) && buf[i] <= ' ' && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r') {
		i++
	}
	return i
}

// quoteOrBackslash returns the index of the first '"' or '\\' at or after
// i in buf, len(buf) if none: eight bytes at a time, then one by one.
func quoteOrBackslash(buf []byte, i int) int {
	for ; i+8 <= len(buf); i += 8 {
		w := binary.LittleEndian.Uint64(buf[i:])
		if hasByte(w, '"')|hasByte(w, '\\') != 0 {
			break
		}
	}
	for ; i < len(buf); i++ {
		if c := buf[i]; c == '"' || c == '\\' {
			return i
		}
	}
	return len(buf)
}

// mapObject consumes a JSON object into a map of shape sh: any keys, each
// once.
func (s *scanner) mapObject(sh *scanShape) {
	s.pos++ // '{'
	if s.peek() == '}' {
		s.pos++
		return
	}
	keys := map[string]bool{}
	for !s.bad {
		key, ok := s.key()
		if !ok || keys[string(key)] {
			s.bad = true
			return
		}
		keys[string(key)] = true
		if s.peek() != ':' {
			s.bad = true
			return
		}
		s.pos++
		s.value(sh.elem, "", false)
		if s.afterItem('}') {
			return
		}
	}
}

// key reads an object key without escapes (false otherwise: an escaped
// key is the walker's to compare).
func (s *scanner) key() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.pos + 1
	end := quoteOrBackslash(s.buf, start)
	if end >= len(s.buf) || s.buf[end] != '"' {
		return nil, false
	}
	s.pos = end + 1
	return s.buf[start:end], true
}

// hasByte is non-zero when one of w's eight bytes is c (the classic
// "has zero byte" test on w xor c in every byte).
func hasByte(w uint64, c byte) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := w ^ (ones * uint64(c))
	return (x - ones) &^ x & highs
}

// scalar consumes a string, number or literal.
func (s *scanner) scalar() {
	if s.pos >= len(s.buf) {
		s.bad = true
		return
	}
	if s.buf[s.pos] == '"' {
		s.str()
		return
	}
	s.literal()
}

// str consumes a string, escapes included.
func (s *scanner) str() {
	// Most strings have no escape: find the closing quote eight bytes
	// at a time.
	if e := quoteOrBackslash(s.buf, s.pos+1); e < len(s.buf) && s.buf[e] == '"' {
		s.pos = e + 1
		return
	}
	for i := s.pos + 1; i < len(s.buf); i++ {
		switch s.buf[i] {
		case '\\':
			i++
		case '"':
			s.pos = i + 1
			return
		}
	}
	s.bad = true
}

// literal consumes a number, true, false or null: up to the next
// delimiter.
func (s *scanner) literal() {
	start := s.pos
	for s.pos < len(s.buf) && !delimiter[s.buf[s.pos]] {
		s.pos++
	}
	if s.pos == start {
		s.bad = true
	}
}

// delimiter marks the bytes that end a literal.
var delimiter = [256]bool{',': true, '}': true, ']': true, ':': true, ' ': true, '\t': true, '\n': true, '\r': true, '"': true, '{': true, '[': true}

// skipValue consumes any one value.
func (s *scanner) skipValue() {
	switch s.peek() {
	case '{':
		s.pos++
		if s.peek() == '}' {
			s.pos++
			return
		}
		for !s.bad {
			if s.peek() != '"' {
				s.bad = true
				return
			}
			s.str()
			if s.peek() != ':' {
				s.bad = true
				return
			}
			s.pos++
			s.skipValue()
			if s.afterItem('}') {
				return
			}
		}
	case '[':
		s.pos++
		if s.peek() == ']' {
			s.pos++
			return
		}
		for !s.bad {
			s.skipValue()
			if s.afterItem(']') {
				return
			}
		}
	default:
		s.scalar()
	}
}

// afterItem reads what follows an item of an array or object: a comma
// (another item follows: false), the container's close (consumed: true),
// or anything else (the input is refused, s.bad set: true).
func (s *scanner) afterItem(end byte) bool {
	switch s.peek() {
	case ',':
		s.pos++
		return false
	case end:
		s.pos++
		return true
	}
	s.bad = true
	return true
}
