package jsontape

import (
	"bytes"
	"slices"
	"unsafe"
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

// Splits reports whether p runs in more than one part.
func (p Parallel) Splits() bool { return p.Chunks > 1 && p.Run != nil }

// Split is a job's top-level object as the decoding pass splits it: its
// members, and the message array of the member it was asked to split,
// recorded on tapes (one per part of a parallel decode, in order).
type Split struct {
	Tapes []*Tape
	// Found is set when the member to split was present and an array.
	Found bool
}

// SplitObject validates data as one JSON object nested at most maxDepth
// deep, with only space after it, and calls f with each member's key and
// raw value, in order, as EachMember does. The value of
// member splitKey, when it is an array, is recorded as messages on tapes,
// in the same pass (no byte is scanned twice), in the parts par gives; of
// several such members, the last one's.
func SplitObject(data []byte, maxDepth int, splitKey string, par Parallel, f func(key string, value []byte)) (Split, error) {
	s := scanner{data: data, maxDepth: maxDepth}
	var sp Split
	i := s.skipSpace(0)
	if i >= len(data) || data[i] != '{' {
		return sp, s.errAt(i, "expected a JSON object")
	}
	i = s.skipSpace(i + 1)
	if i < len(data) && data[i] == '}' {
		return sp, s.trailing(i + 1)
	}
	for {
		key, vstart, err := s.memberKey(i)
		if err != nil {
			return sp, err
		}
		var vend int
		if key == splitKey && vstart < len(data) && data[vstart] == '[' {
			sp.Tapes, vend, err = s.messageArray(vstart, 2, par)
			sp.Found = true
		} else {
			vend, err = s.value(vstart, 1)
		}
		if err != nil {
			return sp, err
		}
		f(key, data[vstart:vend:vend])
		var closed bool
		if i, closed, err = s.nextMember(vend); err != nil {
			return sp, err
		} else if closed {
			return sp, s.trailing(i)
		}
	}
}

// SplitArray validates data as one JSON array of messages, nested at most
// maxDepth deep, with only space around it, and records the messages on
// tapes as SplitObject does. It returns ok false, and no error, when data
// is valid JSON but not an array.
func SplitArray(data []byte, maxDepth int, par Parallel) (tapes []*Tape, ok bool, err error) {
	s := scanner{data: data, maxDepth: maxDepth}
	i := s.skipSpace(0)
	if i >= len(data) || data[i] != '[' {
		if err := Valid(data, maxDepth); err != nil {
			return nil, false, err
		}
		return nil, false, nil
	}
	tapes, end, err := s.messageArray(i, 1, par)
	if err == nil {
		if end = s.skipSpace(end); end != len(data) {
			err = s.errAt(end, "invalid character %q after top-level value", data[end])
		}
	}
	return tapes, err == nil, err
}

// AddMessage records on t the message raw, a sub-slice of t.Data that is
// one JSON value already validated (a session file's message object), and
// returns its index in t.Messages. It reports whether raw holds invalid
// text (the node's InvalidText flag).
func (t *Tape) AddMessage(raw []byte) int {
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(raw))) - uintptr(unsafe.Pointer(unsafe.SliceData(t.Data))))
	s := scanner{data: t.Data[:off+len(raw)], maxDepth: unlimitedDepth}
	b := builder{t: t}
	_, _ = s.message(&b, off, 0)
	return len(t.Messages) - 1
}

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
// decode (message, nextElement), with its own scanner and tape.
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
// it and the message count after it.

// arrayPart is what one part of a message array parsed: its tape, the
// index past its last element's separator (the next element's start, or
// past the closing bracket when closed).
type arrayPart struct {
	tape   *Tape
	end    int
	closed bool
	err    error
}

// messageArray validates the message array at i (nesting depth depth)
// and returns its messages on tapes, in the parts par gives, with the
// index past the array.
func (s *scanner) messageArray(i, depth int, par Parallel) ([]*Tape, int, error) {
	if depth > s.maxDepth {
		return nil, i, &depthError{offset: i, limit: s.maxDepth}
	}
	i = s.skipSpace(i + 1)
	if i < len(s.data) && s.data[i] == ']' {
		return []*Tape{{Data: s.data}}, i + 1, nil
	}
	var one [1]int // a sequential decode's one cut and part, on the stack
	cuts := one[:]
	cuts[0] = i
	var guessed []int
	if par.Splits() {
		guessed = s.messageCuts(i, par.Chunks)
	}
	limitAfter := func(c int) int { // where part c stops: at or past the next cut
		if c+1 < len(cuts) {
			return cuts[c+1]
		}
		return len(s.data)
	}
	var onePart [1]arrayPart
	parts := onePart[:]
	if len(guessed) > 1 {
		cuts, parts = guessed, s.arrayParts(guessed, depth, par)
	} else {
		parts[0] = s.arrayPart(i, len(s.data), depth)
	}
	kept := []*Tape{parts[0].tape}
	p := parts[0]
	for p.err == nil && !p.closed {
		next, _ := slices.BinarySearch(cuts, p.end) // the first cut at or after where p stopped
		if next < len(cuts) && cuts[next] == p.end {
			p = parts[next] // a proven boundary: that part is the sequential parse
		} else {
			p = s.arrayPart(p.end, limitAfter(next-1), depth)
		}
		kept = append(kept, p.tape)
	}
	for c := range parts { // the parts of wrong guesses: their arrays go back
		if !slices.Contains(kept, parts[c].tape) {
			parts[c].tape.Release()
		}
	}
	if p.err != nil {
		for _, t := range kept {
			t.Release()
		}
		return nil, p.end, p.err
	}
	return kept, p.end, nil
}

// arrayParts parses the parts of a message array that start at cuts, in
// parallel (par): part c stops at or past cuts[c+1].
// The helpers get a copy of the scanner, so a sequential decode's stays on
// its stack.
func (s *scanner) arrayParts(cuts []int, depth int, par Parallel) []arrayPart {
	parts := make([]arrayPart, len(cuts))
	sc := *s
	par.Run(len(cuts), func(c int) {
		limit := len(sc.data)
		if c+1 < len(cuts) {
			limit = cuts[c+1]
		}
		parts[c] = sc.arrayPart(cuts[c], limit, depth)
	})
	return parts
}

// arrayPart parses the elements of a message array at depth depth from the
// element at i until one ends the array or the next one starts at or past
// limit.
func (s *scanner) arrayPart(i, limit, depth int) arrayPart {
	ps := scanner{data: s.data, maxDepth: s.maxDepth}
	// The part's share of the entries, from its share of the bytes, so the
	// arrays are not regrown a dozen times (newTape).
	t := newTape(s.data, limit-i)
	b := builderFor(t)
	defer b.done()
	p := arrayPart{tape: t}
	for {
		end, err := ps.message(&b, i, depth)
		if err != nil {
			p.end, p.err = end, err
			return p
		}
		if i, p.closed, p.err = ps.nextElement(end); p.err != nil || p.closed || i >= limit {
			p.end = i
			return p
		}
	}
}

// messageCuts returns first and up to k-1 guessed element starts after it,
// in increasing order (see messageArray).
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

// MessageCuts returns the guessed starts of the parts a decode of the
// message array whose first element is at first splits into (k parts at
// most): first, then each later cut.
func MessageCuts(data []byte, first, k int) []int {
	s := scanner{data: data, maxDepth: unlimitedDepth}
	return s.messageCuts(first, k)
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
		kstart, kend, vstart, err := probe.memberKeySpan(i)
		if err != nil {
			return false
		}
		if !probe.escaped && string(probe.data[kstart+1:kend-1]) == "role" {
			return true
		} else if probe.escaped {
			if k, _ := DecodeString(probe.data[kstart:kend]); k == "role" {
				return true
			}
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
