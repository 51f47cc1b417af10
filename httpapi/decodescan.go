package httpapi

import (
	"reflect"
	"sync"
)

// scanShape is what strictScan knows of a Go type: for a struct, its
// fields by exact JSON name (the walker's fieldType, exact matches only);
// for a slice, array or map, its element.
type scanShape struct {
	kind   reflect.Kind
	fields map[string]scanField
	elem   *scanShape
	skip   bool // json.RawMessage or an interface: any value
}

type scanField struct {
	index int // the field's bit in the object's seen mask
	shape *scanShape
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
		if t.NumField() > 64 {
			return nil, false
		}
		sh.fields = map[string]scanField{}
		i := 0
		for f := range t.Fields() {
			if !f.IsExported() {
				continue
			}
			name := f.Tag.Get("json")
			for k := 0; k < len(name); k++ {
				if name[k] == ',' {
					name = name[:k]
					break
				}
			}
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := sh.fields[name]; dup {
				// The walker takes the first; be as careful and leave it
				// to the walker.
				return nil, false
			}
			fs, ok := buildShape(f.Type, building)
			if !ok {
				return nil, false
			}
			sh.fields[name] = scanField{index: i, shape: fs}
			i++
		}
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map:
		es, ok := buildShape(t.Elem(), building)
		if !ok {
			return nil, false
		}
		sh.elem = es
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

// object consumes a JSON object into struct shape sh.
func (s *scanner) object(sh *scanShape, path string, pathed bool) {
	s.pos++ // '{'
	if s.peek() == '}' {
		s.pos++
		return
	}
	var seen uint64
	for !s.bad {
		key, ok := s.key()
		if !ok {
			s.bad = true
			return
		}
		f, known := sh.fields[string(key)]
		if !known || seen&(1<<f.index) != 0 {
			s.bad = true
			return
		}
		seen |= 1 << f.index
		if s.peek() != ':' {
			s.bad = true
			return
		}
		s.pos++
		sub := ""
		if pathed && s.maxItems != nil && (f.shape.kind == reflect.Struct || f.shape.kind == reflect.Slice || f.shape.kind == reflect.Array) {
			sub = join(path, string(key))
		}
		s.value(f.shape, sub, pathed)
		if s.afterItem('}') {
			return
		}
	}
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
	for i := start; i < len(s.buf); i++ {
		switch s.buf[i] {
		case '\\':
			return nil, false
		case '"':
			s.pos = i + 1
			return s.buf[start:i], true
		}
	}
	return nil, false
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
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ',', '}', ']', ':', ' ', '\t', '\n', '\r', '"', '{', '[':
			if s.pos == start {
				s.bad = true
			}
			return
		}
		s.pos++
	}
	if s.pos == start {
		s.bad = true
	}
}

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
