package checkpoint

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// Ticket is one in-flight offset, returned by Track. Its Ack is called
// exactly once.
type Ticket struct {
	c      *Checkpointer
	p      *partition
	key    Key
	offset int64
	// prevNext is the partition's next offset before this ticket (Release
	// restores it).
	prevNext int64
	acked    bool // guarded by c.mu
}

// Ack marks the offset done (err == nil) or failed (err != nil: the partition
// never commits at or past it). A second call returns an error wrapping
// transport.ErrAlreadyAcked and changes nothing.
func (t *Ticket) Ack(err error) error {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.acked {
		return fmt.Errorf("checkpoint: offset %s/%d: %w", t.key, t.offset, transport.ErrAlreadyAcked)
	}
	t.forgetLocked()
	p := t.p
	if err != nil && (p.failed < 0 || t.offset < p.failed) {
		p.failed = t.offset
	}
	return nil
}

// Release forgets a ticket whose record was never handed out (the reader
// stopped before delivering it), as if it had never been tracked: the
// partition resumes reading at its offset. Only the partition's latest
// ticket may be released; it counts as its one ack.
func (t *Ticket) Release() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.acked {
		return
	}
	t.forgetLocked()
	if t.p.next == t.offset+1 {
		t.p.next = t.prevNext
	}
}

// forgetLocked removes the ticket from its partition's in-flight offsets and
// wakes blocked Track calls when that frees room; the caller holds c.mu.
func (t *Ticket) forgetLocked() {
	t.acked = true
	p := t.p
	if p.inflight[t.offset]--; p.inflight[t.offset] <= 0 {
		delete(p.inflight, t.offset)
	}
	p.count--
	if !p.dropped && p.count == t.c.maxInFlight-1 { // it was at the cap: wake blocked Track calls
		close(p.space)
		p.space = make(chan struct{})
	}
}

// Key returns the partition of the ticket.
func (t *Ticket) Key() Key { return t.key }

// Offset returns the offset of the ticket.
func (t *Ticket) Offset() int64 { return t.offset }
