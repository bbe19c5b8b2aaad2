package legacy

import (
	"bytes"
	"slices"
)

// Parallel says how one large job's decode or encode is split: into Chunks
// parts, run by Run (package fanout's Pool.Run: the caller's goroutine
// takes parts too, so Run never waits for a free helper). The zero value,
// or Chunks below 2, runs everything on the caller's goroutine. The result
// never depends on the split: a chunked decode or encode gives exactly what
// the sequential one gives, errors included (issue 12e).
type Parallel struct {
	Chunks int
	Run    func(k int, f func(chunk int))
}

func (p Parallel) splits() bool { return p.Chunks > 1 && p.Run != nil }

// The message array is decoded in parts by speculation, with no pre-scan
// of the whole input: the bytes from the first message to the end of the
// input are cut near equal lengths, each cut moved forward to the next `{`
// that follows a comma, so opens an element of some array (in an object a
// comma is followed by a key), and that opens an object with a "role"
// member, as every message has and a content block has not (the probe
// reads that object's members up to "role", about one message's bytes at
// most, with a scanner of its own). The object may still be nested (a tool
// input holding messages), so a cut is a guess until it is checked. Every
// part is parsed in parallel, from its cut to the first element boundary
// at or past the next cut, by the same validating pass as the sequential
// decode (message, nextElement), with its own scanner and slabs.
//
// The guesses are then checked in order, on the caller's goroutine. The
// first part starts at the array's first element, so it is right. A part
// that is right and stopped exactly at the next cut proves that cut is an
// element boundary of the message array, so the next part parsed exactly
// what the sequential pass parses there: parsing from a boundary depends
// only on the bytes, the position and the depth. A part that stopped
// elsewhere (its next cut was a nested object) means the parts it skipped
// over were guesses that failed: they are dropped, and the caller's
// goroutine parses on from where the right part stopped to the next cut:
// a wrong guess costs about that part's parse once more, on one goroutine,
// and every part stops at the end of the input at the latest. The first
// right part that fails or closes the array ends the decode, with the
// error the sequential pass gives at the same byte (the offsets are the
// input's, as each part's scanner reads the whole input). Limits are the
// sequential ones: the depth is checked by the same pass, the size before
// it and the message count after it (wrapMessages).

// arrayPart is what one part of a message array parsed: its messages, the
// index past its last element's separator (the next element's start, or
// past the closing bracket when closed), and its invalid-text count.
type arrayPart struct {
	msgs        []*Message
	end         int
	closed      bool
	err         error
	invalidText int
}

// messageArrayInParts parses the elements of a message array from its
// first one, at first, in s.parallel.Chunks parts when s.parallel splits,
// else in one part on the caller's goroutine.
func (s *scanner) messageArrayInParts(first, depth int) ([]*Message, int, error) {
	cuts := []int{first}
	if s.parallel.splits() {
		cuts = s.messageCuts(first, s.parallel.Chunks)
	}
	limitAfter := func(c int) int { // where part c stops: at or past the next cut
		if c+1 < len(cuts) {
			return cuts[c+1]
		}
		return len(s.data)
	}
	parts := make([]arrayPart, len(cuts))
	if len(cuts) > 1 {
		s.parallel.Run(len(cuts), func(c int) { parts[c] = s.arrayPart(cuts[c], limitAfter(c), depth) })
	} else {
		parts[0] = s.arrayPart(first, len(s.data), depth)
	}
	kept := parts[:1]
	for p := parts[0]; p.err == nil && !p.closed; {
		next, _ := slices.BinarySearch(cuts, p.end) // the first cut at or after where p stopped
		if next < len(cuts) && cuts[next] == p.end {
			p = parts[next] // a proven boundary: that part is the sequential parse
		} else {
			p = s.arrayPart(p.end, limitAfter(next-1), depth)
		}
		kept = append(kept, p)
	}
	last := kept[len(kept)-1]
	if last.err != nil {
		return nil, last.end, last.err
	}
	n := 0
	for _, p := range kept {
		n += len(p.msgs)
		s.invalidText += p.invalidText
	}
	if len(kept) == 1 {
		return last.msgs, last.end, nil
	}
	msgs := make([]*Message, 0, n)
	for _, p := range kept {
		msgs = append(msgs, p.msgs...)
	}
	return msgs, last.end, nil
}

// arrayPart parses the elements of a message array at depth depth from the
// element at i until one ends the array or the next one starts at or past
// limit.
func (s *scanner) arrayPart(i, limit, depth int) arrayPart {
	ps := scanner{data: s.data, maxDepth: s.maxDepth}
	var t tape
	var slab []Message
	var p arrayPart
	// The part's share of the messages, from its share of the bytes: the
	// list is not regrown a dozen times.
	p.msgs = make([]*Message, 0, 16+(limit-i)/256)
	for {
		if len(slab) == cap(slab) {
			slab = make([]Message, 0, nextSlab(cap(slab), 1))
		}
		slab = slab[:len(slab)+1]
		m := &slab[len(slab)-1]
		before := ps.invalidText
		end, err := ps.message(&t, m, i, depth)
		if err != nil {
			p.end, p.err = end, err
			return p
		}
		m.members.raw = s.data[i:end:end]
		m.invalidText = ps.invalidText != before
		p.msgs = append(p.msgs, m)
		p.invalidText = ps.invalidText
		if i, p.closed, p.err = ps.nextElement(end); p.err != nil || p.closed || i >= limit {
			p.end = i
			return p
		}
	}
}

// messageCuts returns first and up to k-1 guessed element starts after it,
// in increasing order (see messageArrayInParts).
func (s *scanner) messageCuts(first, k int) []int {
	cuts := []int{first}
	span := len(s.data) - first
	for c := 1; c < k; c++ {
		at := max(first+span/k*c, cuts[len(cuts)-1]+1)
		cut := s.nextMessageStart(at)
		if cut < 0 {
			break
		}
		cuts = append(cuts, cut)
	}
	return cuts
}

// nextMessageStart returns the index of the first `{` at or after from
// that follows a comma (white space allowed), so opens an element of some
// array, and opens an object with a "role" member (hasRoleMember), or -1.
func (s *scanner) nextMessageStart(from int) int {
	data := s.data
	for from < len(data) {
		j := bytes.IndexByte(data[from:], '{')
		if j < 0 {
			return -1
		}
		at := from + j
		from = at + 1
		comma := at - 1
		for comma >= 0 && isSpace(data[comma]) {
			comma--
		}
		if comma >= 0 && data[comma] == ',' && s.hasRoleMember(at) {
			return at
		}
	}
	return -1
}

// hasRoleMember reports whether the object at i has a member "role" at its
// top level, reading its members up to that one (a separate scanner: what
// it counts is not kept). It is false when the object does not parse.
func (s *scanner) hasRoleMember(i int) bool {
	probe := scanner{data: s.data, maxDepth: s.maxDepth}
	i = probe.skipSpace(i + 1)
	for i < len(probe.data) && probe.data[i] == '"' {
		key, vstart, err := probe.memberKey(i)
		if err != nil {
			return false
		}
		if key == "role" {
			return true
		}
		vend, err := probe.value(vstart, 1)
		if err != nil {
			return false
		}
		var closed bool
		if i, closed, err = probe.nextMember(vend); err != nil || closed {
			return false
		}
	}
	return false
}

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
	if par.splits() {
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
// as it was), so it is not regrown and copied as it fills. A message is
// written as its input bytes when it is unchanged once its edited blocks
// are folded back into it (AppendJSON folds them), as a second encode of it
// would write it.
func encodePart(msgs []*Message, from, to int) encodedPart {
	p := encodedPart{from: from, to: to, size: to - from}
	if from == 0 && to > 0 {
		p.size-- // no comma before the first message
	}
	var changed []int
	estimate := 0
	for i := from; i < to; i++ {
		if m := msgs[i]; m.Changed() {
			changed = append(changed, i)
			estimate += len(m.members.raw) + 64
		} else {
			p.size += len(m.members.raw)
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
		if !m.Changed() {
			p.changed = p.changed[:before]
			p.size += len(m.members.raw)
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
// the part's size.
func (p *encodedPart) write(region []byte, msgs []*Message) {
	j, prev := 0, 0
	for i := p.from; i < p.to; i++ {
		if i > 0 {
			region = append(region, ',')
		}
		if j < len(p.changedAt) && p.changedAt[j] == i {
			region = append(region, p.changed[prev:p.changedEnd[j]]...)
			prev = p.changedEnd[j]
			j++
			continue
		}
		region = append(region, msgs[i].members.raw...)
	}
}
