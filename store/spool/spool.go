// Package spool is a durable local queue of epoch saves for when the
// history database is away (docs/design.md, "When PostgreSQL is away"): an
// append-only file of checksummed records, each fsynced before Append
// returns, bounded in bytes, read back in order after a crash, with a torn
// or corrupt tail detected and cut off rather than trusted.
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
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/flexd/flexd/store"
)

// ErrFull is returned by Append when the record would take the spool past
// its byte bound: the caller must refuse the work (503) rather than drop it.
var ErrFull = errors.New("spool full")

// FileName is the spool's file in its directory.
const FileName = "spool.log"

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

// Recovery says what Open found in an existing file.
type Recovery struct {
	// Entries is the number of whole records read back.
	Entries int
	// DroppedBytes is the length of the torn or corrupt tail cut off (0
	// when the file ended cleanly), and Reason why it was cut.
	DroppedBytes int64
	Reason       string
}

// Spool is an open spool. Its methods are safe for concurrent use.
type Spool struct {
	mu       sync.Mutex
	dropMu   sync.Mutex // one Drop at a time
	dir      string
	f        *os.File
	size     int64
	maxBytes int64
	entries  []Entry
}

// Open opens (creating it, and dir with mode 0700, if needed) the spool in
// dir, bounded at maxBytes (> 0), and reads back what it holds. A torn or
// corrupt tail (a crash mid-append, a disk error) is cut off the file and
// reported in Recovery; what precedes it is kept.
func Open(dir string, maxBytes int64) (*Spool, Recovery, error) {
	if maxBytes <= 0 {
		return nil, Recovery{}, fmt.Errorf("spool: max bytes %d, want > 0", maxBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, Recovery{}, fmt.Errorf("spool: creating %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, Recovery{}, fmt.Errorf("spool: opening %s: %w", path, err)
	}
	s := &Spool{dir: dir, f: f, maxBytes: maxBytes}
	rec, err := s.load()
	if err != nil {
		f.Close()
		return nil, Recovery{}, err
	}
	return s, rec, nil
}

// load reads the file's frames, cuts a bad tail and leaves the offset at
// the end.
func (s *Spool) load() (Recovery, error) {
	data, err := io.ReadAll(s.f)
	if err != nil {
		return Recovery{}, fmt.Errorf("spool: reading: %w", err)
	}
	var rec Recovery
	off := int64(0)
	for off < int64(len(data)) {
		e, n, reason := decodeFrame(data[off:])
		if reason != "" {
			rec.DroppedBytes, rec.Reason = int64(len(data))-off, reason
			break
		}
		s.entries = append(s.entries, e)
		off += n
	}
	rec.Entries = len(s.entries)
	if rec.DroppedBytes > 0 {
		if err := s.f.Truncate(off); err != nil {
			return rec, fmt.Errorf("spool: cutting a bad tail: %w", err)
		}
		if err := s.f.Sync(); err != nil {
			return rec, fmt.Errorf("spool: cutting a bad tail: %w", err)
		}
	}
	if _, err := s.f.Seek(off, io.SeekStart); err != nil {
		return rec, fmt.Errorf("spool: seeking: %w", err)
	}
	s.size = off
	return rec, nil
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
	if s.size+int64(len(frame)) > s.maxBytes {
		return fmt.Errorf("%w: %d of %d bytes used, the record needs %d", ErrFull, s.size, s.maxBytes, len(frame))
	}
	if _, err := s.f.Write(frame); err != nil {
		// A partial write leaves a torn tail: cut it so the next append
		// does not land after garbage.
		if terr := s.f.Truncate(s.size); terr == nil {
			_, _ = s.f.Seek(s.size, io.SeekStart)
		}
		return fmt.Errorf("spool: appending: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("spool: syncing: %w", err)
	}
	s.size += int64(len(frame))
	s.entries = append(s.entries, e)
	return nil
}

// Entries returns the spooled entries, oldest first (a copy).
func (s *Spool) Entries() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.entries...)
}

// Len is the number of spooled entries, Bytes the spool file's size.
func (s *Spool) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Bytes is the spool file's size in bytes.
func (s *Spool) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size
}

// Oldest is the creation time of the oldest spooled record, false when the
// spool is empty.
func (s *Spool) Oldest() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.entries) == 0 {
		return time.Time{}, false
	}
	return s.entries[0].Record.CreatedAt, true
}

// Find returns the spooled entry of (cluster, epoch), the latest if there
// are several.
func (s *Spool) Find(cluster string, epoch int64) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.entries) - 1; i >= 0; i-- {
		if r := s.entries[i].Record; r.Cluster == cluster && r.Epoch == epoch {
			return s.entries[i], true
		}
	}
	return Entry{}, false
}

// Latest returns the cluster's newest spooled entry: the state the next
// epoch must be decided from while the database is away.
func (s *Spool) Latest(cluster string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.entries) - 1; i >= 0; i-- {
		if s.entries[i].Record.Cluster == cluster {
			return s.entries[i], true
		}
	}
	return Entry{}, false
}

// Drop removes the n oldest entries (those a drain has stored): the rest is
// written to a new file, fsynced and renamed over the old one, so a crash
// at any point leaves either the old spool or the new one, never less. A
// crash before the rename means the dropped entries are drained again,
// which the store's idempotent save makes harmless.
//
// The bulk of the new file is written and synced without holding the lock,
// so appends (epochs being answered) wait only for the entries appended
// meanwhile to be copied and for the rename.
func (s *Spool) Drop(n int) error {
	s.dropMu.Lock()
	defer s.dropMu.Unlock()
	s.mu.Lock()
	if s.f == nil {
		s.mu.Unlock()
		return errors.New("spool: closed")
	}
	n = min(max(n, 0), len(s.entries))
	keep := append([]Entry(nil), s.entries[n:]...)
	seen := len(s.entries)
	s.mu.Unlock()
	if n == 0 {
		return nil
	}
	tmp, err := os.CreateTemp(s.dir, FileName+".*")
	if err != nil {
		return fmt.Errorf("spool: dropping: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	size, err := writeFrames(tmp, keep)
	if err == nil {
		err = tmp.Sync()
	}
	if err != nil {
		tmp.Close()
		return fmt.Errorf("spool: dropping: %w", err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		tmp.Close()
		return errors.New("spool: closed")
	}
	more, err := writeFrames(tmp, s.entries[seen:])
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(s.dir, FileName))
	}
	if err == nil {
		err = syncDir(s.dir)
	}
	if err != nil {
		tmp.Close()
		return fmt.Errorf("spool: dropping: %w", err)
	}
	// The renamed file is the spool now, its offset at its end.
	old := s.f
	s.f, s.size = tmp, size+more
	s.entries = append(keep, s.entries[seen:]...)
	if err := old.Close(); err != nil {
		return fmt.Errorf("spool: closing the old file: %w", err)
	}
	return nil
}

// writeFrames appends the entries' frames to f and returns the bytes
// written.
func writeFrames(f *os.File, entries []Entry) (int64, error) {
	size := int64(0)
	for _, e := range entries {
		frame, err := encodeFrame(e)
		if err != nil {
			return size, err
		}
		if _, err := f.Write(frame); err != nil {
			return size, err
		}
		size += int64(len(frame))
	}
	return size, nil
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
