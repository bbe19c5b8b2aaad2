package transcript

import (
	"fmt"
	"io"
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/uncleared"
)

// EncodedMessages is a transcript's message list made ready for the ready
// payload: which messages changed, and the list's exact size, known before
// the report that states it is written (Report.BytesOut). The list is cut
// into parts of equal message counts, measured in parallel; AppendPayload
// writes every part into its place in the output, again in parallel, and
// WritePayload streams them. A changed message is encoded where it is
// written, never held beside the output: a damaged history's changed
// messages are about its input's size. The bytes are those of a
// sequential encode. It is valid until the messages change.
type EncodedMessages struct {
	msgs  []*Message
	par   Parallel
	parts []encodedPart
	size  int
	one   [1]encodedPart // parts of a list in one part (a small job's)
}

// encodedPart is the messages msgs[from:to] of an EncodedMessages.
type encodedPart struct {
	from, to int
	// changedAt are the indexes of the messages that may differ from their
	// input bytes (Message.MayDiffer), encoded as they are written.
	changedAt []int
	// size is the part's bytes in the array: its messages, each but the
	// list's first after a comma.
	size int
}

// EncodeMessages finds the changed messages and measures the list, in the
// parts par gives.
func (t *Transcript) EncodeMessages(par Parallel) *EncodedMessages {
	k := 1
	if par.Splits() {
		k = min(par.Chunks, max(len(t.Messages), 1))
	}
	e := &EncodedMessages{msgs: t.Messages, par: par}
	n := len(t.Messages)
	if k == 1 { // one part: no closure, no part slice of its own
		e.one[0] = encodePart(t.Messages, 0, n)
		e.parts = e.one[:]
	} else {
		e.parts = make([]encodedPart, k)
		e.run(func(c int) { e.parts[c] = encodePart(t.Messages, n*c/k, n*(c+1)/k) })
	}
	e.size = 2
	for _, p := range e.parts {
		e.size += p.size
	}
	return e
}

// run calls f for every part, in parallel when there are several.
func (e *EncodedMessages) run(f func(part int)) {
	if len(e.parts) > 1 {
		e.par.Run(len(e.parts), f)
		return
	}
	f(0)
}

// encodePart measures msgs[from:to]: a message that may differ
// (MayDiffer) by its EncodedLen, which encodes nothing unless its edited
// blocks may fold back to its input bytes; the rest by their input bytes.
func encodePart(msgs []*Message, from, to int) encodedPart {
	p := encodedPart{from: from, to: to, size: to - from}
	if from == 0 && to > 0 {
		p.size-- // no comma before the first message
	}
	for i := from; i < to; i++ {
		if m := msgs[i]; m.MayDiffer() {
			p.changedAt = append(p.changedAt, i)
			p.size += m.EncodedLen()
		} else {
			p.size += len(m.Raw())
		}
	}
	return p
}

// Size is the length of the message list as a JSON array.
func (e *EncodedMessages) Size() int { return e.size }

// appendTo appends the JSON array: every part is copied into its region of
// dst, in parallel. dst's new room is not cleared (uncleared.Grow), so each
// part must fill its region exactly, as its measure says it does
// (encodePart); a part that did not would leave earlier bytes of the heap
// in the payload, so appendTo panics instead (the job's step turns that
// into an internal_error dead letter).
func (e *EncodedMessages) appendTo(dst []byte) []byte {
	at := len(dst)
	dst = uncleared.Grow(dst, e.size)[:at+e.size]
	dst[at], dst[len(dst)-1] = '[', ']'
	if len(e.parts) == 1 { // one part: no closure, no offsets
		e.parts[0].fill(dst[at+1:len(dst)-1], e.msgs)
		return dst
	}
	starts := make([]int, len(e.parts))
	off := at + 1
	for c, p := range e.parts {
		starts[c] = off
		off += p.size
	}
	filled := make([]bool, len(e.parts))
	e.run(func(c int) {
		filled[c] = e.parts[c].writeInto(dst[starts[c]:starts[c]+e.parts[c].size], e.msgs)
	})
	for c, ok := range filled {
		if !ok {
			panic(fmt.Sprintf("transcript: part %d of the message list did not write the %d bytes it measured", c, e.parts[c].size))
		}
	}
	return dst
}

// fill writes the part into region, which it must fill exactly (appendTo).
func (p *encodedPart) fill(region []byte, msgs []*Message) {
	if !p.writeInto(region, msgs) {
		panic(fmt.Sprintf("transcript: the message list did not write the %d bytes it measured", p.size))
	}
}

// writeInto writes the part into region, and reports whether it wrote
// exactly region's bytes, in region's own array.
func (p *encodedPart) writeInto(region []byte, msgs []*Message) bool {
	out := spanWriter{buf: region[:0:len(region)]}
	p.write(&out, msgs)
	return sameInput(out.buf, region)
}

// writeTo writes the JSON array to w, part after part, through a buffer of
// streamBuffer bytes: a span of the input longer than that is written
// straight from the input, so the array is never held whole (the bytes
// are appendTo's).
func (e *EncodedMessages) writeTo(w io.Writer) error {
	out := spanWriter{buf: make([]byte, 0, streamBuffer), w: w}
	out.put([]byte{'['})
	for c := range e.parts {
		e.parts[c].write(&out, e.msgs)
	}
	out.put([]byte{']'})
	return out.flush()
}

// streamBuffer is writeTo's buffer: large enough that the short spans and
// edited messages of a damaged history go out in few writes.
const streamBuffer = 256 << 10

// spanWriter is where a part's messages go: appended to buf (whose
// capacity appendTo sizes exactly) when w is nil, else gathered in buf and
// written to w as it fills, a span longer than buf written as it is.
type spanWriter struct {
	buf []byte
	w   io.Writer
	err error
}

// put writes b.
func (s *spanWriter) put(b []byte) {
	if s.w != nil && len(s.buf)+len(b) > cap(s.buf) {
		s.flush()
		if len(b) >= cap(s.buf) {
			if s.err == nil {
				_, s.err = s.w.Write(b)
			}
			return
		}
	}
	s.buf = append(s.buf, b...)
}

// encode writes m's encoding (Message.AppendJSON) into buf: after a flush
// when buf is half full, so a message of up to half its capacity is
// encoded without growing it (a longer one grows it).
func (s *spanWriter) encode(m *Message) {
	if s.w != nil && len(s.buf) > cap(s.buf)/2 {
		s.flush()
	}
	s.buf = m.AppendJSON(s.buf)
}

// flush writes what buf holds to w, and returns the first write error.
func (s *spanWriter) flush() error {
	if len(s.buf) > 0 && s.err == nil {
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
	return s.err
}

// write puts the part's messages to out. Runs of messages written as their
// input bytes (all but the changed ones) that lie one after another in the
// input, each pair with exactly the separator the output writes (one comma)
// between them, are put as one span of the input: an untouched job is one
// copy of its message array. A changed message is encoded into out. The
// bytes are those of writing every message in turn.
func (p *encodedPart) write(out *spanWriter, msgs []*Message) {
	j := 0
	var run []byte // the input the pending run is a span of; nil for none
	var runOff, runEnd uint32
	comma := []byte{','}
	for i := p.from; i < p.to; i++ {
		changed := j < len(p.changedAt) && p.changedAt[j] == i
		if !changed {
			data, off, end, ok := msgs[i].members.span()
			if ok && run != nil && off == runEnd+1 && sameInput(data, run) && data[runEnd] == ',' {
				runEnd = end // the input's comma is the output's
				continue
			}
			if run != nil {
				out.put(run[runOff:runEnd])
				run = nil
			}
			if i > 0 {
				out.put(comma)
			}
			if ok {
				run, runOff, runEnd = data, off, end
			} else {
				out.put(msgs[i].Raw())
			}
			continue
		}
		if run != nil {
			out.put(run[runOff:runEnd])
			run = nil
		}
		if i > 0 {
			out.put(comma)
		}
		out.encode(msgs[i])
		j++
	}
	if run != nil {
		out.put(run[runOff:runEnd])
	}
}

// sameInput reports whether a and b are the same input buffer (the tapes
// of one job's parts all index the whole input).
func sameInput(a, b []byte) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}
