package legacy

// The decoding pass splits each message as it validates it: its members,
// and, when its content is an array, its content blocks and their members.
// Rules read every message and most blocks, so recording this structure in
// the one pass that must read every byte anyway spares a second scan of each
// message on first access (issue 12). The values stay sub-slices of the
// input: nothing is copied, and an untouched message is still written back
// as its input bytes.

// slabSize is how many members (or blocks, or messages) one allocation
// holds at most: the structure of a history costs a few allocations per
// thousand messages instead of a few per message.
const slabSize = 1024

// firstSlab is the size of a pass's first slab of each kind. Slabs double
// from it up to slabSize, so a small job (ten messages) does not allocate
// and clear room for a thousand (issue 12: that was 92 % of a small job's
// allocation), while a large one still reaches slabSize after a few slabs.
const firstSlab = 16

// nextSlab is the capacity of the slab that follows one of capacity prev
// when n items must fit.
func nextSlab(prev, n int) int {
	return max(n, min(slabSize, max(2*prev, firstSlab)))
}

// tape holds the scratch stacks and the slabs of one decoding pass.
type tape struct {
	fieldStack []Field // members of the objects being parsed, innermost last
	fieldSlab  []Field // where finished objects' members are kept
	blockStack []Block
	blockSlab  []Block
	ptrSlab    []*Block
}

// keepFields moves the members pushed since start into the slab and returns
// them, with their capacity capped so that an append by a rule copies.
func (t *tape) keepFields(start int) []Field {
	n := len(t.fieldStack) - start
	if n == 0 {
		return []Field{} // an empty object is still an object, whichever slab is current
	}
	if cap(t.fieldSlab)-len(t.fieldSlab) < n {
		t.fieldSlab = make([]Field, 0, nextSlab(cap(t.fieldSlab), n))
	}
	at := len(t.fieldSlab)
	t.fieldSlab = append(t.fieldSlab, t.fieldStack[start:]...)
	clear(t.fieldStack[start:]) // the stack must not keep input slices alive
	t.fieldStack = t.fieldStack[:start]
	return t.fieldSlab[at : at+n : at+n]
}

// keepBlocks moves the blocks pushed since start into the slab and returns
// pointers to them.
func (t *tape) keepBlocks(start int) []*Block {
	n := len(t.blockStack) - start
	if n == 0 {
		return []*Block{} // an empty content array is still an array
	}
	if cap(t.blockSlab)-len(t.blockSlab) < n {
		t.blockSlab = make([]Block, 0, nextSlab(cap(t.blockSlab), n))
	}
	if cap(t.ptrSlab)-len(t.ptrSlab) < n {
		t.ptrSlab = make([]*Block, 0, nextSlab(cap(t.ptrSlab), n))
	}
	at := len(t.blockSlab)
	t.blockSlab = append(t.blockSlab, t.blockStack[start:]...)
	clear(t.blockStack[start:])
	t.blockStack = t.blockStack[:start]
	pat := len(t.ptrSlab)
	for i := at; i < at+n; i++ {
		t.ptrSlab = append(t.ptrSlab, &t.blockSlab[i])
	}
	return t.ptrSlab[pat : pat+n : pat+n]
}

// messageArray validates the message array at i (nesting depth depth) and
// returns its messages, each one split as far as its content blocks' members
// (see tape), with the index past the array. The messages themselves are
// allocated a slab at a time (see nextSlab) and never moved. With
// s.parallel set, the array is parsed in parts (messageArrayInParts), with
// the same result.
func (s *scanner) messageArray(i, depth int) ([]*Message, int, error) {
	if depth > s.maxDepth {
		return nil, i, &depthError{offset: i, limit: s.maxDepth}
	}
	i = s.skipSpace(i + 1)
	if i < len(s.data) && s.data[i] == ']' {
		return make([]*Message, 0, 16), i + 1, nil
	}
	return s.messageArrayInParts(i, depth)
}

// message validates the message at i, an element of an array at depth
// depth, and records its members and blocks in m when it is an object.
func (s *scanner) message(t *tape, m *Message, i, depth int) (int, error) {
	if i >= len(s.data) || s.data[i] != '{' {
		return s.value(i, depth) // not an object: it has no members (node.load)
	}
	fields, end, err := s.members(t, m, i, depth+1)
	if err != nil {
		return end, err
	}
	m.members.obj, m.members.parsed, m.members.isObject = Object{Fields: fields}, true, true
	return end, nil
}

// members validates the object at i (depth depth) and returns its members.
// When m is not nil the object is a message, and a "content" array is split
// into m's blocks, each block's members recorded too.
func (s *scanner) members(t *tape, m *Message, i, depth int) ([]Field, int, error) {
	if depth > s.maxDepth {
		return nil, i, &depthError{offset: i, limit: s.maxDepth}
	}
	raw := s.data
	start := len(t.fieldStack)
	seenContent := false // only the first "content" member is the content (Object.Get)
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == '}' {
		return t.keepFields(start), i + 1, nil
	}
	for {
		key, vstart, err := s.memberKey(i)
		if err != nil {
			return nil, vstart, err
		}
		var vend int
		if m != nil && key == "content" && !seenContent && vstart < len(raw) && raw[vstart] == '[' {
			m.content.blocks, vend, err = s.blockArray(t, vstart, depth+1)
			m.content.loaded, m.content.isArray = true, true
		} else {
			vend, err = s.value(vstart, depth)
		}
		if err != nil {
			return nil, vend, err
		}
		t.fieldStack = append(t.fieldStack, Field{Key: key, Value: raw[vstart:vend:vend]})
		seenContent = seenContent || key == "content"
		var closed bool
		if i, closed, err = s.nextMember(vend); err != nil || closed {
			return t.keepFields(start), i, err
		}
	}
}

// blockArray validates a message's content array at i (depth depth) and
// returns its blocks, each object block with its members recorded.
func (s *scanner) blockArray(t *tape, i, depth int) ([]*Block, int, error) {
	if depth > s.maxDepth {
		return nil, i, &depthError{offset: i, limit: s.maxDepth}
	}
	raw := s.data
	start := len(t.blockStack)
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == ']' {
		return t.keepBlocks(start), i + 1, nil
	}
	for {
		var b Block
		var end int
		var err error
		if i < len(raw) && raw[i] == '{' {
			var fields []Field
			fields, end, err = s.members(t, nil, i, depth+1)
			b.obj, b.isObject = Object{Fields: fields}, true
		} else {
			end, err = s.value(i, depth)
		}
		if err != nil {
			return nil, end, err
		}
		b.raw, b.parsed = raw[i:end:end], true
		t.blockStack = append(t.blockStack, b)
		var closed bool
		if i, closed, err = s.nextElement(end); err != nil || closed {
			return t.keepBlocks(start), i, err
		}
	}
}

// memberKey reads the key of the object member at i and the colon after it,
// and returns the key and the index of the member's value.
func (s *scanner) memberKey(i int) (string, int, error) {
	raw := s.data
	if i >= len(raw) || raw[i] != '"' {
		return "", i, s.errAt(i, "expected a string object key")
	}
	kend, err := s.str(i)
	if err != nil {
		return "", kend, err
	}
	key, ok := decodeString(raw[i:kend])
	if !ok {
		return "", i, s.errAt(i, "invalid object key")
	}
	key = internKey(key)
	i = s.skipSpace(kend)
	if i >= len(raw) || raw[i] != ':' {
		return "", i, s.errAt(i, "expected ':' after object key")
	}
	return key, s.skipSpace(i + 1), nil
}

// nextMember reads what follows an object member ending at end: it returns
// the index of the next key, or the index past the closing brace and closed.
func (s *scanner) nextMember(end int) (next int, closed bool, err error) {
	i := s.skipSpace(end)
	if i >= len(s.data) {
		return i, false, s.errAt(i, "unexpected end of input in object")
	}
	switch s.data[i] {
	case ',':
		return s.skipSpace(i + 1), false, nil
	case '}':
		return i + 1, true, nil
	}
	return i, false, s.errAt(i, "expected ',' or '}' in object")
}

// nextElement reads what follows an array element ending at end: it returns
// the index of the next element, or the index past the closing bracket and
// closed.
func (s *scanner) nextElement(end int) (next int, closed bool, err error) {
	i := s.skipSpace(end)
	if i >= len(s.data) {
		return i, false, s.errAt(i, "unexpected end of input in array")
	}
	switch s.data[i] {
	case ',':
		return s.skipSpace(i + 1), false, nil
	case ']':
		return i + 1, true, nil
	}
	return i, false, s.errAt(i, "expected ',' or ']' in array")
}
