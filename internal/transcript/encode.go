package transcript

import (
	"bytes"
	"slices"
	"unsafe"
)

// EncodedMessages is a transcript's message list made ready for the ready
// payload: every changed message encoded once, and the list's exact size,
// known before the report that states it is written (Report.BytesOut). The
// list is cut into parts of equal message counts; each part's changed
// messages are encoded into a buffer of its own, in parallel, and
// AppendPayload copies every part into its place in the output, again in
// parallel. The bytes are those of a sequential encode. It is valid until
// the messages change.
type EncodedMessages struct {
	msgs  []*Message
	par   Parallel
	parts []encodedPart
	size  int
}

// encodedPart is the messages msgs[from:to] of an EncodedMessages.
type encodedPart struct {
	from, to int
	// changed holds the encodings of the part's changed messages, one after
	// another: message changedAt[j] ends at changedEnd[j].
	changed    []byte
	changedAt  []int
	changedEnd []int
	// size is the part's bytes in the array: its messages, each but the
	// list's first after a comma.
	size int
}

// EncodeMessages encodes the changed messages, in the parts par gives, and
// measures the list.
func (t *Transcript) EncodeMessages(par Parallel) *EncodedMessages {
	k := 1
	if par.Splits() {
		k = min(par.Chunks, max(len(t.Messages), 1))
	}
	e := &EncodedMessages{msgs: t.Messages, par: par, parts: make([]encodedPart, k)}
	n := len(t.Messages)
	encode := func(c int) { e.parts[c] = encodePart(t.Messages, n*c/k, n*(c+1)/k) }
	e.run(encode)
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

// encodePart encodes the changed messages of msgs[from:to], into one
// buffer sized from their input bytes (a changed message is about as long
// as it was), so it is not regrown and copied as it fills. A message that
// may differ (mayDiffer) is encoded once; when that gives its input bytes
// (its edited blocks folded back to what they were: AppendJSON writes the
// input bytes then), it is counted as unchanged.
func encodePart(msgs []*Message, from, to int) encodedPart {
	p := encodedPart{from: from, to: to, size: to - from}
	if from == 0 && to > 0 {
		p.size-- // no comma before the first message
	}
	var changed []int
	estimate := 0
	for i := from; i < to; i++ {
		if m := msgs[i]; m.mayDiffer() {
			changed = append(changed, i)
			estimate += len(m.Raw()) + 64
		} else {
			p.size += len(m.Raw())
		}
	}
	if len(changed) == 0 {
		return p
	}
	p.changed = make([]byte, 0, estimate+estimate/8)
	p.changedAt, p.changedEnd = changed[:0], make([]int, 0, len(changed))
	for _, i := range changed {
		m := msgs[i]
		before := len(p.changed)
		p.changed = m.AppendJSON(p.changed)
		if bytes.Equal(p.changed[before:], m.Raw()) { // unchanged once its blocks are folded back
			p.changed = p.changed[:before]
			p.size += len(m.Raw())
			continue
		}
		p.changedAt, p.changedEnd = append(p.changedAt, i), append(p.changedEnd, len(p.changed))
		p.size += len(p.changed) - before
	}
	return p
}

// Size is the length of the message list as a JSON array.
func (e *EncodedMessages) Size() int { return e.size }

// appendTo appends the JSON array: every part is copied into its region of
// dst, in parallel.
func (e *EncodedMessages) appendTo(dst []byte) []byte {
	at := len(dst)
	dst = slices.Grow(dst, e.size)[:at+e.size]
	dst[at], dst[len(dst)-1] = '[', ']'
	starts := make([]int, len(e.parts))
	off := at + 1
	for c, p := range e.parts {
		starts[c] = off
		off += p.size
	}
	e.run(func(c int) { e.parts[c].write(dst[starts[c]:starts[c]:starts[c]+e.parts[c].size], e.msgs) })
	return dst
}

// write appends the part's messages to region, whose capacity is exactly
// the part's size, and returns it filled. Runs of messages written as their input bytes (all but
// the changed ones) that lie one after another in the input, each pair
// with exactly the separator the output writes (one comma) between them,
// are copied as one span of the input: an untouched job is one copy of its
// message array. The bytes are those of writing every message in turn.
func (p *encodedPart) write(region []byte, msgs []*Message) []byte {
	j, prev := 0, 0
	var run []byte // the input the pending run is a span of; nil for none
	var runOff, runEnd uint32
	for i := p.from; i < p.to; i++ {
		changed := j < len(p.changedAt) && p.changedAt[j] == i
		if !changed {
			data, off, end, ok := msgs[i].members.span()
			if ok && run != nil && off == runEnd+1 && sameInput(data, run) && data[runEnd] == ',' {
				runEnd = end // the input's comma is the output's
				continue
			}
			if run != nil {
				region, run = append(region, run[runOff:runEnd]...), nil
			}
			if i > 0 {
				region = append(region, ',')
			}
			if ok {
				run, runOff, runEnd = data, off, end
			} else {
				region = append(region, msgs[i].Raw()...)
			}
			continue
		}
		if run != nil {
			region, run = append(region, run[runOff:runEnd]...), nil
		}
		if i > 0 {
			region = append(region, ',')
		}
		region = append(region, p.changed[prev:p.changedEnd[j]]...)
		prev = p.changedEnd[j]
		j++
	}
	if run != nil {
		region = append(region, run[runOff:runEnd]...)
	}
	return region
}

// sameInput reports whether a and b are the same input buffer (the tapes
// of one job's parts all index the whole input).
func sameInput(a, b []byte) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}
