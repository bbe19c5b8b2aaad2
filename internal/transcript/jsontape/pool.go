package jsontape

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/uncleared"
)

// A decoding pass takes its tape's arrays from a pool of arrays released by
// earlier jobs (Tape.Release), sized by the input it is to record: the
// arrays of a tape whose capacity for members is at least 2^c (and less
// than 2^(c+1)) are kept in class c. A pass that expects m members, with
// 2^(c-1) < m <= 2^c, takes from class c-1 arrays that are large enough
// (the ones a job of its size released), else from class c or one of the
// three above (a pass whose input had more entries per byte than its
// estimate released larger arrays), so it finds arrays it will not regrow.
// A small pass's arrays are sized for the top of its class (roundedSpan),
// so any pass of that class finds them in class c.
// A tape whose arrays together are larger than MaxPooledBytes is not kept:
// a rare 100 MB job does not pin its ~70 MB of arrays (their capacity:
// newTape) for the jobs of a few MB that follow (one tape of a 10 MB
// history is about 7 MB). What the
// pool holds beyond that the collector frees when it is idle (sync.Pool).
const MaxPooledBytes = 16 << 20

// poolClasses bounds the classes: 2^27 members is far above any tape the
// byte bound lets the pool keep.
const poolClasses = 28

// tapeArrays are the arrays of one released tape, waiting in the pool.
type tapeArrays struct {
	nodes    []Node
	members  []Member
	messages []uint32
	// memberStack and blockStack are the stacks of the pass that built
	// the tape (builder.done), kept so the next pass that takes these
	// arrays does not grow stacks of its own from nothing.
	memberStack []Member
	blockStack  []Node
}

var tapePools [poolClasses]sync.Pool // of *tapeArrays, by class

// newTape returns an empty tape of data with room for the entries of about
// span bytes of messages (a part's share of the input), its arrays from the
// pool when it holds some large enough.
func newTape(data []byte, span int) *Tape {
	// A history of short messages has a member per ~35 bytes and a node
	// per ~140: sized for that, its arrays are not regrown (each growth a
	// copy, the old array garbage the size of the new). A history of long
	// texts has fewer: the capacity it does not use is address space, not
	// memory (pages no one writes, as nothing clears them).
	if span <= roundedSpan {
		span = classSpan(span)
	}
	messages, nodes, members := 16+span/1024, 16+span/128, 64+span/32
	t := &Tape{Data: data}
	if a := takeArrays(members); a != nil {
		t.Nodes, t.Members, t.Messages, t.arrays = a.nodes[:0], a.members[:0], a.messages[:0], a
	}
	// The arrays are not cleared (uncleared.Slice): the builder only
	// appends to them.
	if cap(t.Nodes) < nodes {
		t.Nodes = uncleared.Slice[Node](nodes)
	}
	if cap(t.Members) < members {
		t.Members = uncleared.Slice[Member](members)
	}
	if cap(t.Messages) < messages {
		t.Messages = uncleared.Slice[uint32](messages)
	}
	return t
}

// roundedSpan bounds the parts whose arrays newTape sizes for the top of
// their pool class (classSpan): a small job's tape then fits every later
// job of its class, where arrays sized for the job itself would be too
// small for a slightly larger one, a pool miss (one job in four of the
// small-job benchmark, about seven allocations each). Above it the
// rounding would cost up to twice the address space of a long history.
const roundedSpan = 1 << 20

// classSpan is the largest span whose tape newTape sizes with as many
// members as span's (64+span/32) rounded up to a power of two: every span
// of that pool class fits arrays sized for it.
func classSpan(span int) int {
	top := 1 << bits.Len(uint(64+span/32-1))
	return (top-64)*32 + 31
}

// takeArrays returns released arrays with room for members members, or
// nil (see MaxPooledBytes for the classes it looks in).
func takeArrays(members int) *tapeArrays {
	c := bits.Len(uint(members - 1)) // 2^(c-1) < members <= 2^c
	if c > 0 && c-1 < poolClasses {
		if a, _ := tapePools[c-1].Get().(*tapeArrays); a != nil {
			if cap(a.members) >= members {
				return a
			}
			tapePools[c-1].Put(a)
		}
	}
	for k := c; k < min(c+4, poolClasses); k++ {
		if a, _ := tapePools[k].Get().(*tapeArrays); a != nil {
			return a
		}
	}
	return nil
}

// Release gives the tape's arrays back to the pool for a later decoding
// pass, and empties the tape: every view of it (a message or block read
// from it) must be dead by then, and one read after it panics (its arrays
// are gone) rather than read another job's entries. The input is not kept.
// A second Release, or one of a tape no pass built, does nothing.
func (t *Tape) Release() {
	nodes, members, messages := t.Nodes, t.Members, t.Messages
	t.Data, t.Nodes, t.Members, t.Messages = nil, nil, nil, nil
	a := t.arrays
	t.arrays = nil
	if a == nil {
		a = &tapeArrays{}
	}
	if cap(members) == 0 || arraysBytes(nodes, members, messages)+arraysBytes(a.blockStack, a.memberStack, nil) > MaxPooledBytes {
		return
	}
	a.nodes, a.members, a.messages = nodes[:0], members[:0], messages[:0]
	tapePools[bits.Len(uint(cap(members)))-1].Put(a)
}

// arraysBytes is the memory the arrays of a tape hold.
func arraysBytes(nodes []Node, members []Member, messages []uint32) int {
	return cap(nodes)*int(unsafe.Sizeof(Node{})) + cap(members)*int(unsafe.Sizeof(Member{})) + cap(messages)*4
}
