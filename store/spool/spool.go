// Package spool is a durable local queue of epoch saves for when the
// history database is away (docs/design.md, "When PostgreSQL is away"): an
// append-only log of checksummed records in segment files, each record
// fsynced before Append returns, bounded in bytes, read back in order after
// a crash, with a torn or corrupt tail detected and cut off rather than
// trusted.
//
// Dropping what a drain has stored deletes whole segments and records how
// far into the first remaining one the drain got (the head file), so it
// never rewrites spooled records: a drain of hundreds of megabytes costs an
// answer being spooled meanwhile nothing but a small fsync.
//
// It is the storage half of the spool; deciding when to spool and draining
// into PostgreSQL belong to the store that uses it.
package spool

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/flexd/flexd/store"
)

// ErrFull is returned by Append when the record would take the spool past
// its byte bound: the caller must refuse the work (503) rather than drop it.
var ErrFull = errors.New("spool full")

// SegmentPattern matches the spool's segment files in its directory; their
// names order them (spool-0000000001.log, spool-0000000002.log, ...).
const SegmentPattern = "spool-*.log"

// segmentBytes is the size past which Append starts a new segment: it
// bounds what a crash in the middle of a drain makes the next one store a
// second time (harmless, as saves are idempotent, but not free).
const segmentBytes = 16 << 20

// headFile names the first live segment and how many of its records were
// drained already ("seq skip"), replaced atomically at each Drop.
const headFile = "head"

// legacyFileName is the single file of spools written before segments; Open
// adopts it as the first segment.
const legacyFileName = "spool.log"

// headerSize is a frame's header: payload length and CRC-32C, both
// little-endian uint32.
const headerSize = 8

// maxFrame bounds one payload: a frame header claiming more is corrupt, not
// a reason to allocate gigabytes.
const maxFrame = 1 << 30

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Entry is one spooled save: the record as it was answered and the state
// epoch it was decided from (SaveEpoch's prevStateEpoch), so that a drain
// saves it exactly as the answer's request would have.
type Entry struct {
	Record         store.Record `json:"record"`
	PrevStateEpoch int64        `json:"prev_state_epoch"`
}

// Recovery says what Open found in an existing spool.
type Recovery struct {
	// Entries is the number of whole records read back (those a drain had
	// not dropped).
	Entries int
	// DroppedBytes is the length of the torn or corrupt tails cut off (0
	// when every segment ended cleanly), and Reason why the last was cut.
	DroppedBytes int64
	Reason       string
}

// segment is one file of the log.
type segment struct {
	seq   uint64
	bytes int64
	count int // records in the file, dropped ones included
}

// item is a live entry, the segment holding it and its frame's size.
type item struct {
	e     Entry
	seq   uint64
	bytes int64
}

// Spool is an open spool. Its methods are safe for concurrent use.
type Spool struct {
	mu       sync.Mutex
	dir      string
	f        *os.File  // the last segment, open for appending
	segs     []segment // oldest first; the last is f's
	live     int64     // bytes of the live entries' frames
	maxBytes int64
	items    []item
}

// Open opens (creating it, and dir with mode 0700, if needed) the spool in
// dir, bounded at maxBytes (> 0) of records not drained yet, and reads back
// what it holds. (The disk holds up to a segment more: drained records
// stay until their segment is deleted whole.) A torn or
// corrupt tail (a crash mid-append, a disk error) is cut off its segment and
// reported in Recovery; what precedes it is kept.
func Open(dir string, maxBytes int64) (*Spool, Recovery, error) {
	if maxBytes <= 0 {
		return nil, Recovery{}, fmt.Errorf("spool: max bytes %d, want > 0", maxBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, Recovery{}, fmt.Errorf("spool: creating %s: %w", dir, err)
	}
	s := &Spool{dir: dir, maxBytes: maxBytes}
	rec, err := s.load()
	if err != nil {
		if s.f != nil {
			s.f.Close()
		}
		return nil, Recovery{}, err
	}
	return s, rec, nil
}

func segmentName(seq uint64) string { return fmt.Sprintf("spool-%010d.log", seq) }

// load reads the segments in order, cuts bad tails, skips what the head
// file says was drained, deletes segments drained whole, and opens the
// last segment (or a first one) for appending.
func (s *Spool) load() (Recovery, error) {
	if err := s.adoptLegacy(); err != nil {
		return Recovery{}, err
	}
	seqs, err := s.segmentSeqs()
	if err != nil {
		return Recovery{}, err
	}
	headSeq, skip, err := s.readHead()
	if err != nil {
		return Recovery{}, err
	}
	var rec Recovery
	for _, seq := range seqs {
		if seq < headSeq {
			// Drained whole; a crash came between the head's update and
			// the deletion.
			if err := os.Remove(filepath.Join(s.dir, segmentName(seq))); err != nil {
				return rec, fmt.Errorf("spool: removing a drained segment: %w", err)
			}
			continue
		}
		entries, sizes, size, dropped, reason, err := s.readSegment(seq)
		if err != nil {
			return rec, err
		}
		if dropped > 0 {
			rec.DroppedBytes += dropped
			rec.Reason = reason
		}
		s.segs = append(s.segs, segment{seq: seq, bytes: size, count: len(entries)})
		from := 0
		if seq == headSeq {
			from = min(skip, len(entries))
		}
		for i := from; i < len(entries); i++ {
			s.items = append(s.items, item{e: entries[i], seq: seq, bytes: sizes[i]})
			s.live += sizes[i]
		}
	}
	rec.Entries = len(s.items)
	if len(s.segs) == 0 {
		return rec, s.startSegment(max(headSeq, 1))
	}
	last := s.segs[len(s.segs)-1]
	f, err := os.OpenFile(filepath.Join(s.dir, segmentName(last.seq)), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return rec, fmt.Errorf("spool: opening the last segment: %w", err)
	}
	s.f = f
	return rec, nil
}

// adoptLegacy renames the single file of an older spool to a first
// segment.
func (s *Spool) adoptLegacy() error {
	legacy := filepath.Join(s.dir, legacyFileName)
	if _, err := os.Stat(legacy); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.Rename(legacy, filepath.Join(s.dir, segmentName(1))); err != nil {
		return fmt.Errorf("spool: adopting %s: %w", legacy, err)
	}
	return syncDir(s.dir)
}

// segmentSeqs lists the segment files' sequence numbers, in order.
func (s *Spool) segmentSeqs() ([]uint64, error) {
	names, err := filepath.Glob(filepath.Join(s.dir, SegmentPattern))
	if err != nil {
		return nil, fmt.Errorf("spool: listing segments: %w", err)
	}
	var seqs []uint64
	for _, name := range names {
		var seq uint64
		if _, err := fmt.Sscanf(filepath.Base(name), "spool-%d.log", &seq); err != nil || filepath.Base(name) != segmentName(seq) {
			return nil, fmt.Errorf("spool: %s is not a segment this spool wrote", name)
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	return seqs, nil
}

// readHead reads the head file: the first live segment and how many of its
// records are drained. No file: nothing drained.
func (s *Spool) readHead() (uint64, int, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, headFile))
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("spool: reading the head: %w", err)
	}
	var seq uint64
	var skip int
	if _, err := fmt.Sscanf(string(b), "%d %d", &seq, &skip); err != nil || skip < 0 {
		// The head is replaced atomically, so this is damage, not a
		// crash. Skipping nothing stores drained records a second time,
		// which idempotent saves make harmless; guessing could lose some.
		return 0, 0, nil
	}
	return seq, skip, nil
}

// readSegment reads one segment's frames (the entries and each frame's
// size) and cuts a bad tail off it.
func (s *Spool) readSegment(seq uint64) (entries []Entry, sizes []int64, size, dropped int64, reason string, err error) {
	path := filepath.Join(s.dir, segmentName(seq))
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, 0, 0, "", fmt.Errorf("spool: reading %s: %w", path, err)
	}
	off := int64(0)
	for off < int64(len(data)) {
		e, n, why := decodeFrame(data[off:])
		if why != "" {
			dropped, reason = int64(len(data))-off, why
			break
		}
		entries, sizes = append(entries, e), append(sizes, n)
		off += n
	}
	if dropped > 0 {
		if err := truncateSync(path, off); err != nil {
			return nil, nil, 0, 0, "", fmt.Errorf("spool: cutting a bad tail off %s: %w", path, err)
		}
	}
	return entries, sizes, off, dropped, reason, nil
}

func truncateSync(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		return err
	}
	return f.Sync()
}

// startSegment creates segment seq, makes it the one appended to and
// fsyncs the directory. The caller holds s.mu (or owns s).
func (s *Spool) startSegment(seq uint64) error {
	f, err := os.OpenFile(filepath.Join(s.dir, segmentName(seq)), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("spool: starting a segment: %w", err)
	}
	if err := syncDir(s.dir); err != nil {
		f.Close()
		return err
	}
	if s.f != nil {
		if err := s.f.Close(); err != nil {
			f.Close()
			return fmt.Errorf("spool: closing a full segment: %w", err)
		}
	}
	s.f = f
	s.segs = append(s.segs, segment{seq: seq})
	return nil
}

// decodeFrame reads one frame from the start of b: the entry, the frame's
// length, or why b does not start with a whole, sound frame.
func decodeFrame(b []byte) (Entry, int64, string) {
	if len(b) < headerSize {
		return Entry{}, 0, "torn header"
	}
	n := binary.LittleEndian.Uint32(b)
	sum := binary.LittleEndian.Uint32(b[4:])
	if n > maxFrame {
		return Entry{}, 0, "implausible length"
	}
	if int64(len(b)-headerSize) < int64(n) {
		return Entry{}, 0, "torn record"
	}
	payload := b[headerSize : headerSize+int(n)]
	if crc32.Checksum(payload, castagnoli) != sum {
		return Entry{}, 0, "checksum mismatch"
	}
	var e Entry
	if err := json.Unmarshal(payload, &e); err != nil {
		return Entry{}, 0, "undecodable record"
	}
	return e, headerSize + int64(n), ""
}

func encodeFrame(e Entry) ([]byte, error) {
	payload, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("spool: encoding a record: %w", err)
	}
	frame := make([]byte, headerSize, headerSize+len(payload))
	binary.LittleEndian.PutUint32(frame, uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:], crc32.Checksum(payload, castagnoli))
	return append(frame, payload...), nil
}

// Append writes e at the end of the spool and fsyncs it before returning:
// once Append returns nil the entry survives a crash of the process or the
// machine (not the loss of the disk). ErrFull means it was not written.
func (s *Spool) Append(e Entry) error {
	frame, err := encodeFrame(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("spool: closed")
	}
	if s.live+int64(len(frame)) > s.maxBytes {
		return fmt.Errorf("%w: %d of %d bytes used, the record needs %d", ErrFull, s.live, s.maxBytes, len(frame))
	}
	if last := s.segs[len(s.segs)-1]; last.bytes >= segmentBytes {
		if err := s.startSegment(last.seq + 1); err != nil {
			return err
		}
	}
	last := &s.segs[len(s.segs)-1]
	if _, err := s.f.Write(frame); err != nil {
		// A partial write leaves a torn tail: cut it so the next append
		// does not land after garbage.
		_ = s.f.Truncate(last.bytes)
		return fmt.Errorf("spool: appending: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("spool: syncing: %w", err)
	}
	last.bytes += int64(len(frame))
	last.count++
	s.live += int64(len(frame))
	s.items = append(s.items, item{e: e, seq: last.seq, bytes: int64(len(frame))})
	return nil
}

// Entries returns the spooled entries, oldest first (a copy).
func (s *Spool) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, len(s.items))
	for i, it := range s.items {
		out[i] = it.e
	}
	return out
}

// Len is the number of spooled entries.
func (s *Spool) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// Bytes is the size in bytes of the records not drained yet, what counts
// against the spool's bound.
func (s *Spool) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live
}

// Oldest is the creation time of the oldest spooled record, false when the
// spool is empty.
func (s *Spool) Oldest() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) == 0 {
		return time.Time{}, false
	}
	return s.items[0].e.Record.CreatedAt, true
}

// Find returns the spooled entry of (cluster, epoch), the latest if there
// are several.
func (s *Spool) Find(cluster string, epoch int64) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.items) - 1; i >= 0; i-- {
		if r := s.items[i].e.Record; r.Cluster == cluster && r.Epoch == epoch {
			return s.items[i].e, true
		}
	}
	return Entry{}, false
}

// Latest returns the cluster's newest spooled entry: the state the next
// epoch must be decided from while the database is away.
func (s *Spool) Latest(cluster string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.items) - 1; i >= 0; i-- {
		if s.items[i].e.Record.Cluster == cluster {
			return s.items[i].e, true
		}
	}
	return Entry{}, false
}

// Drop removes the n oldest entries (those a drain has stored). It writes
// the new head (first live segment, records of it drained) atomically,
// then deletes the segments drained whole; no record is rewritten. A crash
// before the head is replaced means the dropped entries are drained again,
// which the store's idempotent save makes harmless.
//
// When the segment being appended to was drained in part, appends move to
// a new segment, so that the next drain can delete it whole.
func (s *Spool) Drop(n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return errors.New("spool: closed")
	}
	n = min(max(n, 0), len(s.items))
	if n == 0 {
		return nil
	}
	for _, it := range s.items[:n] {
		s.live -= it.bytes
	}
	s.items = slices.Delete(s.items, 0, n)
	if last := s.segs[len(s.segs)-1]; last.count > 0 && (len(s.items) == 0 || s.items[0].seq == last.seq) {
		if err := s.startSegment(last.seq + 1); err != nil {
			return err
		}
	}
	head := s.segs[len(s.segs)-1].seq
	if len(s.items) > 0 {
		head = s.items[0].seq
	}
	skip := 0
	for _, seg := range s.segs {
		if seg.seq == head {
			live := 0
			for _, it := range s.items {
				if it.seq != head {
					break
				}
				live++
			}
			skip = seg.count - live
		}
	}
	if err := s.writeHead(head, skip); err != nil {
		return err
	}
	for len(s.segs) > 0 && s.segs[0].seq < head {
		if err := os.Remove(filepath.Join(s.dir, segmentName(s.segs[0].seq))); err != nil {
			return fmt.Errorf("spool: removing a drained segment: %w", err)
		}
		s.segs = s.segs[1:]
	}
	return syncDir(s.dir)
}

// writeHead replaces the head file atomically and durably.
func (s *Spool) writeHead(seq uint64, skip int) error {
	tmp, err := os.CreateTemp(s.dir, headFile+".*")
	if err != nil {
		return fmt.Errorf("spool: writing the head: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	_, err = fmt.Fprintf(tmp, "%d %d\n", seq, skip)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(s.dir, headFile))
	}
	if err == nil {
		err = syncDir(s.dir)
	}
	if err != nil {
		return fmt.Errorf("spool: writing the head: %w", err)
	}
	return nil
}

// syncDir fsyncs a directory, so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("spool: syncing %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("spool: syncing %s: %w", dir, err)
	}
	return nil
}

// Close closes the spool's file.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return fmt.Errorf("spool: closing: %w", err)
	}
	return nil
}
