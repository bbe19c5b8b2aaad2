package jsontape

// A Tape is what the decoding pass records of a message array: per message,
// per content block and per member, a span of the input and a few flags,
// in flat arrays of fixed-size entries that hold no pointer, so the
// collector never scans them however long the history (issue 22). Values
// are read from the input by their spans: a string is decoded only when
// it holds an escape (Member.Escaped), and compared as raw bytes
// otherwise. Nothing is copied, and nothing of a tape changes once the
// pass has built it until it is released (Release): reading it is safe
// from any number of goroutines.
//
// Messages and blocks are Nodes; a node's members are the entries
// Members[First : First+Count] (contiguous, in input order), and a
// message's content blocks are the nodes Nodes[Blocks : Blocks+NBlocks].
type Tape struct {
	// Data is the input the spans index; it is never written.
	Data []byte
	// Nodes are the messages and their content blocks, each message
	// after its blocks.
	Nodes []Node
	// Members are the members of every object node.
	Members []Member
	// Messages are the indexes in Nodes of the messages, in order.
	Messages []uint32

	arrays *tapeArrays // the pool's holder of the arrays, reused on Release
}

// Node is one message or content block of a tape.
type Node struct {
	Off, End        uint32 // the value's span in Data
	First, Count    uint32 // its members: Members[First : First+Count]
	Blocks, NBlocks uint32 // a message's content blocks: Nodes[Blocks : Blocks+NBlocks]
	// Kind is the index in Members of the first "role" member (a message)
	// or "type" member (a block), or NoMember.
	Kind  uint32
	Flags Flags
	// KindValue is the Kind member's value when it is one of KindValues
	// (its index there), 0 otherwise: the role or type every rule reads
	// of every message and block is then read without touching the input.
	KindValue uint8
	// StopValue is a message's first "stopReason" member's value when it
	// is one of KindValues (its index there), 0 otherwise: the stop reason
	// several rules read of every assistant is then read without finding
	// the member or touching the input. It fills the padding after
	// KindValue.
	StopValue uint8
	// Marks are what the scan read of some of the node's values while
	// their bytes were in cache (Marks), so that a history whose nodes
	// all read as the rules want them is known not to need those rules.
	// It fills the padding after StopValue.
	Marks Marks
	// Keys has bit i set when a member's key is KeyNames[i] (i > 0): Find
	// answers for a common key the node lacks without walking its members.
	Keys uint64
}

// Member is one member of an object node: the span of its value, and its
// key's length, from which the key's span is found (keySpan): the key ends
// at the quote before the colon before the value, so it needs no offset of
// its own. A member is 12 bytes: a history of short messages has about one
// member per 35 bytes of input, so the members are the bulk of a tape.
type Member struct {
	Val, ValEnd uint32 // the value's span in Data
	// KeyLen is the key's length, quotes included, or 0 for a key of
	// 64 KiB or more (its start is then found by its opening quote).
	KeyLen uint16
	Flags  Flags
	KeyID  uint8 // the key's index in KeyNames, 0 for another key
}

// keySpan returns the span of member m's key in data, quotes included: it
// ends at the last quote before the value (between them only space and the
// colon), and starts KeyLen before its end, or, for a key too long for
// KeyLen, at the first quote before its end that no backslash escapes.
func keySpan(data []byte, m *Member) (start, end uint32) {
	end = m.Val
	for colon := false; ; {
		end--
		c := data[end]
		if c == '"' && colon {
			break
		}
		colon = colon || c == ':'
	}
	end++ // past the closing quote
	if m.KeyLen != 0 {
		return end - uint32(m.KeyLen), end
	}
	for start = end - 2; ; start-- {
		if data[start] != '"' {
			continue
		}
		slashes := uint32(0)
		for start-slashes > 0 && data[start-slashes-1] == '\\' {
			slashes++
		}
		if slashes%2 == 0 {
			return start, end
		}
	}
}

// keyLen is the KeyLen of a key of n bytes (quotes included).
func keyLen(n int) uint16 {
	if n > 0xFFFF {
		return 0
	}
	return uint16(n)
}

// Marks are what the scan reads of a node's first member of a few keys,
// for the rules that would otherwise read those values again (Node.Marks).
type Marks uint8

const (
	// UsageWhole marks a message whose first "usage" member is a whole
	// plain usage (NormalUsage), which the usage rule leaves as it is.
	UsageWhole Marks = 1 << iota
	// NameOff marks a node whose first "name" member is a string but not
	// a plain tool name (PlainToolName): a tool call the tool-name rule
	// may rename.
	NameOff
	// ToolNameOff marks a node whose first "toolName" member is a string
	// but not a plain tool name: a tool result the tool-name rule may
	// rename.
	ToolNameOff
)

// Flags are the bits a tape keeps per node and per member.
type Flags uint8

const (
	// IsObject marks a node that is a JSON object (others, null or a
	// string in a message list, have no members).
	IsObject Flags = 1 << iota
	// ContentArray marks a message whose first "content" member is an
	// array: its elements are the message's blocks.
	ContentArray
	// InvalidText marks a message holding invalid UTF-8 or a lone
	// surrogate escape somewhere in its bytes (see HasInvalidText).
	InvalidText
	// KeyEscaped marks a member whose key holds an escape.
	KeyEscaped
	// Escaped marks a member whose value is a string holding an escape.
	Escaped
	// PlainEnds marks a member whose value is a string whose first and
	// last bytes inside the quotes are printable ASCII other than a
	// backslash, the last not the end of an escape: the string is then
	// neither blank nor padded with white space, which a rule can know
	// from the tape without reading the input. The scan marks the
	// members of the keys rules ask that of (endsAsked).
	PlainEnds
	// PlainStart marks a member whose value is a string whose first byte
	// inside the quotes is printable ASCII other than a backslash: the
	// string is not blank, whatever its end (a text ending in a newline,
	// as a command's output does). Every PlainEnds member is PlainStart.
	PlainStart
	// StringValue marks a member whose value is a JSON string: String
	// then knows it without reading the input.
	StringValue
)

// endsAsked are the keys (by KeyID) whose string values the scan marks
// PlainStart and PlainEnds: the ones a rule asks whether they are blank or a given word
// once trimmed (a text, a thinking signature, a redacted block's data, an
// assistant's provider). Other members are left unmarked, which is what a
// mark means to none of its readers (they read the value), so the scan
// spends nothing on the rest.
var endsAsked = func() (asked [len(KeyNames)]bool) {
	for _, k := range []string{"text", "thinkingSignature", "signature", "thought_signature", "data", "provider"} {
		asked[keyID(k)] = true
	}
	asked[0] = false
	return asked
}()

// plainByte is true for the bytes PlainStart and PlainEnds accept at a
// string's ends: printable ASCII (space excluded) other than the quote and
// the backslash.
var plainByte = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainFlags returns the marks of the string value at data[start:end]
// (quotes included): PlainStart when its first byte is plain, and
// PlainEnds too when its last is; the scan reads the bytes it has just
// passed. A last byte that ends an escape (`\n`, or the last digit of
// `\u0020`) is not plain: the character it spells may be a space.
func plainFlags(data []byte, start, end int) Flags {
	if end-start <= 2 || !plainByte[data[start+1]] {
		return 0
	}
	if !plainByte[data[end-2]] || data[end-3] == '\\' || end-7 > start && data[end-7] == '\\' {
		return PlainStart
	}
	return PlainStart | PlainEnds
}

// NoMember is Node.Kind when the node has no such member.
const NoMember = ^uint32(0)

// Message returns the node of message i.
func (t *Tape) Message(i int) *Node { return &t.Nodes[t.Messages[i]] }

// Raw returns the bytes of node n.
func (t *Tape) Raw(n *Node) []byte { return t.Data[n.Off:n.End:n.End] }

// MemberOf returns the members of node n.
func (t *Tape) MemberOf(n *Node) []Member { return t.Members[n.First : n.First+n.Count] }

// BlocksOf returns the content blocks of message node n.
func (t *Tape) BlocksOf(n *Node) []Node { return t.Nodes[n.Blocks : n.Blocks+n.NBlocks] }

// Value returns the raw bytes of member m's value.
func (t *Tape) Value(m *Member) []byte { return t.Data[m.Val:m.ValEnd:m.ValEnd] }

// Key returns member m's key, decoded when it holds an escape.
func (t *Tape) Key(m *Member) string {
	start, end := keySpan(t.Data, m)
	raw := t.Data[start:end]
	if m.Flags&KeyEscaped == 0 {
		return AliasString(raw[1 : len(raw)-1])
	}
	k, _ := DecodeString(raw)
	return k
}

// Find returns the index in Members of the first member of node n whose
// key is key, or NoMember. A common key (KeyNames) is found by its number,
// and one the node lacks by one bit of Node.Keys; another key without
// escapes is compared with the input's bytes as they are.
func (t *Tape) Find(n *Node, key string) uint32 {
	id, known := keyAddrs.lookup(key) // a rule's string constant, known by its address
	if !known {
		id = keyID(key)
	}
	if id != 0 {
		if n.Keys&(1<<(id&63)) == 0 { // ids are below 64: one shift
			return NoMember
		}
		ms := t.Members[n.First : n.First+n.Count]
		for i := range ms {
			if ms[i].KeyID == id {
				return n.First + uint32(i)
			}
		}
		return NoMember
	}
	ms := t.Members[n.First : n.First+n.Count]
	for i := range ms {
		m := &ms[i]
		if m.KeyID != 0 {
			continue
		}
		if m.Flags&KeyEscaped == 0 {
			if m.KeyLen == 0 || int(m.KeyLen) == len(key)+2 {
				if start, end := keySpan(t.Data, m); string(t.Data[start+1:end-1]) == key {
					return n.First + uint32(i)
				}
			}
		} else if t.Key(m) == key {
			return n.First + uint32(i)
		}
	}
	return NoMember
}

// String returns member m's value when it is a JSON string: a view of the
// input when it has no escape, else its decoded text (a new string).
func (t *Tape) String(m *Member) (string, bool) {
	if m.Flags&StringValue == 0 {
		return "", false
	}
	v := t.Data[m.Val:m.ValEnd] // a view: an unescaped string is not read here
	if m.Flags&Escaped == 0 {
		return AliasString(v[1 : len(v)-1]), true
	}
	return DecodeString(v)
}

// KindString returns the string value of node n's Kind member ("" when it
// has none, or it is not a string).
func (t *Tape) KindString(n *Node) string {
	if n.KindValue != 0 {
		return KindValues[n.KindValue]
	}
	if n.Kind == NoMember {
		return ""
	}
	s, _ := t.String(&t.Members[n.Kind])
	return s
}

// builder holds the scratch stacks of one decoding pass: the members and
// blocks of the objects being parsed, innermost last, moved onto the tape
// when their object or array closes.
type builder struct {
	t           *Tape
	memberStack []Member
	blockStack  []Node
}

// builderFor returns a builder that records on t, with the stacks that
// came with t's arrays from the pool (see done).
func builderFor(t *Tape) builder {
	b := builder{t: t}
	if a := t.arrays; a != nil {
		b.memberStack, b.blockStack = a.memberStack[:0], a.blockStack[:0]
	}
	return b
}

// done keeps the builder's stacks with its tape's arrays, for the pass
// that takes them from the pool after the tape's Release.
func (b *builder) done() {
	if b.t.arrays == nil {
		b.t.arrays = &tapeArrays{}
	}
	b.t.arrays.memberStack, b.t.arrays.blockStack = b.memberStack[:0], b.blockStack[:0]
}

// keepMembers moves the members pushed since start onto the tape and
// returns where they begin.
func (b *builder) keepMembers(start int) (first, count uint32) {
	first = uint32(len(b.t.Members))
	b.t.Members = append(b.t.Members, b.memberStack[start:]...)
	count = uint32(len(b.memberStack) - start)
	b.memberStack = b.memberStack[:start]
	return first, count
}

// keepBlocks moves the blocks pushed since start onto the tape and
// returns where they begin.
func (b *builder) keepBlocks(start int) (first, count uint32) {
	first = uint32(len(b.t.Nodes))
	b.t.Nodes = append(b.t.Nodes, b.blockStack[start:]...)
	count = uint32(len(b.blockStack) - start)
	b.blockStack = b.blockStack[:start]
	return first, count
}

// message validates the message at i, an element of an array at depth
// depth, and records it, its members and its blocks, on the tape.
func (s *scanner) message(b *builder, i, depth int) (int, error) {
	n := Node{Off: uint32(i), Kind: NoMember}
	before := s.invalidText
	var end int
	var err error
	if i < len(s.data) && s.data[i] == '{' {
		n, end, err = s.members(b, true, i, depth+1)
	} else {
		end, err = s.value(i, depth) // not an object: it has no members
	}
	if err != nil {
		return end, err
	}
	n.End = uint32(end)
	if s.invalidText != before {
		n.Flags |= InvalidText
	}
	b.t.Messages = append(b.t.Messages, uint32(len(b.t.Nodes)))
	b.t.Nodes = append(b.t.Nodes, n)
	return end, nil
}

// members validates the object at i (depth depth), records its members,
// and returns its node (but its End) and the index past it. When message
// is set the object is a message: its first "content" member, when an
// array, is split into blocks, each block's members recorded too. (The
// node is returned, not filled through a pointer: members and blockArray
// recurse, and a pointer would make every node escape to the heap.)
func (s *scanner) members(b *builder, message bool, i, depth int) (Node, int, error) {
	n := Node{Off: uint32(i), Kind: NoMember, Flags: IsObject}
	if depth > s.maxDepth {
		return n, i, &depthError{offset: i, limit: s.maxDepth}
	}
	raw := s.data
	start := len(b.memberStack)
	kindAt := -1 // the Kind member's place among the node's members
	kind := uint8(keyType)
	if message {
		kind = keyRole
	}
	seenContent := false // only the first "content" member is the content (Find)
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == '}' {
		n.First, n.Count = b.keepMembers(start)
		return n, i + 1, nil
	}
	for {
		kstart, kend, vstart := i, 0, 0
		var err error
		if end, ok := s.strCached(i); ok && vectorScan && raw[i] == '"' && end < len(raw) && raw[end] == ':' {
			kend, vstart = end, s.skipSpace(end+1) // a plain key and its colon, read as memberKeySpan reads them
		} else if kstart, kend, vstart, err = s.memberKeySpan(i); err != nil {
			return n, vstart, err
		}
		m := Member{Val: uint32(vstart), KeyLen: keyLen(kend - kstart)}
		if !s.escaped { // the key's number, looked up where it stands
			m.KeyID = keyNames.indexAt(raw, kstart+1, kend-1)
		} else {
			m.Flags |= KeyEscaped
			m.KeyID = escapedKeyID(raw[kstart:kend])
		}
		bit := uint64(1) << (m.KeyID & 63)                                              // KeyNames has fewer than 64 names: one shift
		stopAt := message && m.KeyID == keyStopReason && n.Keys&(1<<keyStopReason) == 0 // the first stopReason
		marked := markedKeys&bit != 0 && n.Keys&bit == 0                                // the first of a key marksOf reads
		n.Keys |= bit &^ 1                                                              // bit 0 is "no common key": never set
		var vend int
		if message && !seenContent && m.KeyID == keyContent && vstart < len(raw) && raw[vstart] == '[' {
			n.Blocks, n.NBlocks, vend, err = s.blockArray(b, vstart, depth+1)
			n.Flags |= ContentArray
		} else if vstart < len(raw) && raw[vstart] == '"' { // most values are strings: no dispatch
			m.Flags |= StringValue
			if end, ok := s.strCached(vstart); ok && vectorScan {
				vend = end
			} else if vend, err = s.str(vstart); s.escaped {
				m.Flags |= Escaped
			}
			if err == nil && endsAsked[m.KeyID] {
				m.Flags |= plainFlags(raw, vstart, vend)
			}
		} else if marked && message && m.KeyID == keyUsage && depth+2 <= s.maxDepth {
			// a message's usage, read once for its form and its validity:
			// a whole plain usage is valid JSON (its cost one level down)
			if end, whole := wholeUsageEnd(raw, vstart); whole {
				vend = end
				n.Marks |= UsageWhole
			} else {
				vend, err = s.value(vstart, depth)
			}
			marked = false // its mark is known
		} else {
			vend, err = s.value(vstart, depth)
		}
		if err != nil {
			return n, vend, err
		}
		m.ValEnd = uint32(vend)
		if marked {
			n.Marks |= marksOf(message, &m, raw[vstart:vend])
		}
		if stopAt && m.Flags&Escaped == 0 && vend-vstart >= 2 && raw[vstart] == '"' {
			n.StopValue = kindValues.indexAt(raw, vstart+1, vend-1)
		}
		if kindAt < 0 && m.KeyID == kind {
			kindAt = len(b.memberStack) - start
			if m.Flags&Escaped == 0 && vend-vstart >= 2 && raw[vstart] == '"' {
				n.KindValue = kindValues.indexAt(raw, vstart+1, vend-1)
			}
		}
		seenContent = seenContent || m.KeyID == keyContent
		b.memberStack = append(b.memberStack, m)
		if vend+1 < len(raw) && raw[vend] == ',' && raw[vend+1] == '"' { // the next key, as nextMember reads it
			i = vend + 1
			continue
		}
		var closed bool
		if i, closed, err = s.nextMember(vend); err != nil || closed {
			if err == nil {
				n.First, n.Count = b.keepMembers(start)
				if kindAt >= 0 {
					n.Kind = n.First + uint32(kindAt)
				}
			}
			return n, i, err
		}
	}
}

// markedKeys has the bits (by KeyID) of the keys marksOf reads.
const markedKeys = 1<<keyUsage | 1<<keyName | 1<<keyToolName

// marksOf returns the Marks the first member m of its key in a node (a
// message when message is set) gives the node, its value being raw.
func marksOf(message bool, m *Member, raw []byte) Marks {
	switch m.KeyID {
	case keyUsage:
		if message && NormalUsage(raw) {
			return UsageWhole
		}
	case keyName:
		if m.Flags&StringValue != 0 && !PlainToolName(raw) {
			return NameOff
		}
	case keyToolName:
		if m.Flags&StringValue != 0 && !PlainToolName(raw) {
			return ToolNameOff
		}
	}
	return 0
}

// PlainToolName reports whether raw, a JSON string, is a tool name every
// target accepts as it is: 1 to 64 of [A-Za-z0-9_-], starting with a
// letter or an underscore (the strictest rules of the contract table:
// OpenAI's characters, Gemini's first character), and no escape, so that
// the common name is judged without decoding it.
func PlainToolName(raw []byte) bool {
	if len(raw) < 2 {
		return false
	}
	body := raw[1 : len(raw)-1]
	if len(body) == 0 || len(body) > 64 || body[0] >= '0' && body[0] <= '9' || body[0] == '-' {
		return false
	}
	for _, c := range body {
		if !toolNameByte[c] {
			return false
		}
	}
	return true
}

// toolNameByte marks the bytes of a plain tool name: [A-Za-z0-9_-].
var toolNameByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
	}
	return t
}()

// escapedKeyID returns the KeyID of the key raw (quotes included) that
// holds an escape: the number of the name it decodes to.
func escapedKeyID(raw []byte) uint8 {
	d, _ := DecodeString(raw)
	return keyID(d)
}

// blockArray validates a message's content array at i (depth depth),
// records its elements as blocks, each object block with its members, and
// returns where they begin on the tape and the index past the array.
func (s *scanner) blockArray(b *builder, i, depth int) (first, count uint32, end int, err error) {
	if depth > s.maxDepth {
		return 0, 0, i, &depthError{offset: i, limit: s.maxDepth}
	}
	raw := s.data
	start := len(b.blockStack)
	i = s.skipSpace(i + 1)
	if i < len(raw) && raw[i] == ']' {
		first, count = b.keepBlocks(start)
		return first, count, i + 1, nil
	}
	for {
		blk := Node{Off: uint32(i), Kind: NoMember}
		if i < len(raw) && raw[i] == '{' {
			blk, end, err = s.members(b, false, i, depth+1)
		} else {
			end, err = s.value(i, depth)
		}
		if err != nil {
			return 0, 0, end, err
		}
		blk.End = uint32(end)
		b.blockStack = append(b.blockStack, blk)
		var closed bool
		if i, closed, err = s.nextElement(end); err != nil || closed {
			if err == nil {
				first, count = b.keepBlocks(start)
			}
			return first, count, i, err
		}
	}
}

// memberKeySpan reads the key of the object member at i and the colon
// after it: it returns the key's span, quotes included, and the index of
// the member's value. s.escaped tells whether the key holds an escape.
func (s *scanner) memberKeySpan(i int) (kstart, kend, vstart int, err error) {
	raw := s.data
	if i >= len(raw) || raw[i] != '"' {
		return i, i, i, s.errAt(i, "expected a string object key")
	}
	kend, err = s.str(i)
	if err != nil {
		return i, kend, kend, err
	}
	if s.escaped {
		if _, ok := DecodeString(raw[i:kend]); !ok {
			return i, kend, i, s.errAt(i, "invalid object key")
		}
	}
	j := kend
	if j < len(raw) && raw[j] != ':' { // most keys are followed by the colon
		j = s.skipSpace(j)
	}
	if j >= len(raw) || raw[j] != ':' {
		return i, kend, j, s.errAt(j, "expected ':' after object key")
	}
	return i, kend, s.skipSpace(j + 1), nil
}

// memberKey reads the key of the object member at i and the colon after
// it, and returns the key, interned (see internKey), and the index of the
// member's value.
func (s *scanner) memberKey(i int) (string, int, error) {
	kstart, kend, vstart, err := s.memberKeySpan(i)
	if err != nil {
		return "", vstart, err
	}
	key, _ := DecodeString(s.data[kstart:kend])
	return internKey(key), vstart, nil
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
