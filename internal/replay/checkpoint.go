package replay

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// checkpointEntry records one finished session: which version of which file
// (path, size, mtime) and how it ended.
type checkpointEntry struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime_ns"`
	Outcome string `json:"outcome"` // always outcomeReady: only a delivered session is finished
}

// Checkpoint is an append-only JSONL file of finished sessions. A line is
// appended (and synced) only after the session's output is durable, so an
// interrupted run leaves a checkpoint that never claims unfinished work; a
// torn last line from a crash is ignored on load.
type Checkpoint struct {
	mu   sync.Mutex
	f    *os.File
	done map[string]checkpointEntry
}

// OpenCheckpoint opens the checkpoint at path. With resume it loads what a
// previous run finished; without, it starts a new, empty checkpoint.
func OpenCheckpoint(path string, resume bool) (*Checkpoint, error) {
	cp := &Checkpoint{done: map[string]checkpointEntry{}}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if resume {
		if err := cp.load(path); err != nil {
			return nil, err
		}
	} else {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening checkpoint: %w", err)
	}
	cp.f = f
	return cp, nil
}

func (cp *Checkpoint) load(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading checkpoint: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e checkpointEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Path != "" {
			cp.done[e.Path] = e
		}
	}
	return sc.Err()
}

// Done reports whether this version of the file finished in an earlier run.
func (cp *Checkpoint) Done(f SessionFile) bool {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	e, ok := cp.done[f.Path]
	return ok && e.Size == f.Size && e.ModTime == f.ModTime
}

// outcomeReady is the outcome a checkpoint line records.
const outcomeReady = "ready"

// Record appends a session whose output is durable and syncs the file.
func (cp *Checkpoint) Record(f SessionFile) error {
	line, err := json.Marshal(checkpointEntry{Path: f.Path, Size: f.Size, ModTime: f.ModTime, Outcome: outcomeReady})
	if err != nil {
		return err
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if _, err := cp.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	cp.done[f.Path] = checkpointEntry{Path: f.Path, Size: f.Size, ModTime: f.ModTime, Outcome: outcomeReady}
	return cp.f.Sync()
}

// Close closes the checkpoint file.
func (cp *Checkpoint) Close() error { return cp.f.Close() }
