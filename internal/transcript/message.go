package transcript

import "strconv"

// node is a JSON value kept as its raw bytes and its members: split by the
// decoding pass for messages and their blocks (tape), otherwise parsed into
// an Object only when someone looks inside it; re-encoded only when someone
// changed it.
type node struct {
	raw      []byte // original encoding; nil for values built by a rule
	obj      Object
	parsed   bool
	isObject bool
	dirty    bool
	// decoded keeps the long string value last decoded (see String).
	decoded decodedString
	// kindKey names the member whose string value kind holds ("" when not
	// a string), "" when none is known: a message's role or a block's
	// type, which every rule reads of every message and block. Any edit of
	// the members forgets it.
	kindKey string
	kind    string
}

// kindOf returns the string value of key, from the one-member cache when
// key is the member last asked for.
func (n *node) kindOf(key string) string {
	if n.kindKey == key && key != "" {
		return n.kind
	}
	n.kind, _ = n.String(key)
	n.kindKey = key
	return n.kind
}

// decodedString is a long member value and its decoded text. Member values
// are never written in place (aliasString), so the same bytes at the same
// address always decode to the same text: a value a rule replaced has other
// bytes and is simply not found.
type decodedString struct {
	raw  *byte
	size int
	text string
}

// cachedLen is the shortest string value whose decoding node.String keeps:
// roles, types and ids are cheaper to decode again than to look up, while
// texts and tool results are read by several rules each.
const cachedLen = 64

func (n *node) load() {
	if n.parsed {
		return
	}
	n.parsed = true
	obj, err := ParseObject(n.raw)
	if err != nil {
		return // not an object (null, a string, ...): no members
	}
	n.obj, n.isObject = obj, true
}

// IsObject reports whether the value is a JSON object. Non-object entries
// (null, strings, numbers) have no members and are dropped by the rules that
// the spec says drop them.
func (n *node) IsObject() bool { n.load(); return n.isObject }

// Raw returns the original bytes, or nil for a value built by a rule.
func (n *node) Raw() []byte { return n.raw }

// Get returns the raw JSON value of a member.
func (n *node) Get(key string) ([]byte, bool) { n.load(); return n.obj.Get(key) }

// Has reports whether a member is present.
func (n *node) Has(key string) bool { n.load(); return n.obj.Has(key) }

// String returns a member's value when it is a JSON string. The long value
// last read is kept decoded (unescaping it may allocate): a block's text or
// a message's string content is read by several rules in a row.
func (n *node) String(key string) (string, bool) {
	n.load()
	v, ok := n.obj.Get(key)
	if !ok || len(v) == 0 || v[0] != '"' {
		return "", false
	}
	if len(v) < cachedLen {
		return decodeString(v)
	}
	if d := n.decoded; d.raw == &v[0] && d.size == len(v) {
		return d.text, true
	}
	text, ok := decodeString(v)
	if ok {
		n.decoded = decodedString{raw: &v[0], size: len(v), text: text}
	}
	return text, ok
}

// Bool returns a member's value when it is a JSON boolean.
func (n *node) Bool(key string) (value, ok bool) { n.load(); return n.obj.Bool(key) }

// Number returns a member's value when it is a JSON number.
func (n *node) Number(key string) (float64, bool) { n.load(); return n.obj.Number(key) }

// IsNull reports whether a member is absent or null.
func (n *node) IsNull(key string) bool { n.load(); return n.obj.IsNull(key) }

// Set replaces or appends a member (raw JSON value) and marks the value
// changed when the bytes differ.
func (n *node) Set(key string, raw []byte) {
	n.load()
	n.kindKey = ""
	n.isObject = true
	if n.obj.Set(key, raw) {
		n.dirty = true
	}
}

// SetString sets a member to a JSON string.
func (n *node) SetString(key, s string) { n.Set(key, JSONString(s)) }

// Delete removes a member and reports whether it was present.
func (n *node) Delete(key string) bool {
	n.load()
	n.kindKey = ""
	if n.obj.Delete(key) {
		n.dirty = true
		return true
	}
	return false
}

// Type returns the value's "type" member (content blocks, session entries).
func (n *node) Type() string { return n.kindOf("type") }

// Block is one element of a message's content array.
type Block struct {
	node
}

// NewBlock builds a block from members.
func NewBlock(fields ...Field) *Block {
	return &Block{node{obj: Object{Fields: fields}, parsed: true, isObject: true, dirty: true}}
}

// TextBlock builds {"type":"text","text":text}.
func TextBlock(text string) *Block {
	return NewBlock(Field{"type", JSONString("text")}, Field{"text", JSONString(text)})
}

// Changed reports whether the block must be re-encoded.
func (b *Block) Changed() bool { return b.raw == nil || b.dirty }

// Text returns the block's text member when it is a string.
func (b *Block) Text() (string, bool) { return b.String("text") }

// AppendJSON appends the block's encoding: its original bytes when unchanged.
func (b *Block) AppendJSON(dst []byte) []byte {
	if !b.Changed() {
		return append(dst, b.raw...)
	}
	return b.obj.AppendJSON(dst)
}

// Message is one entry of a transcript's message list (spec §1.2). Its
// members and content blocks are split by the decoding pass (tape), or on
// first access for a message built otherwise (a session file's); a message
// that no rule changed is written back as its original bytes.
type Message struct {
	node
	blocks        []*Block
	blocksLoaded  bool
	blocksIsArray bool
	blocksChanged bool
	invalidText   bool // the decoder saw invalid UTF-8 or a lone surrogate in it (in the padding: no extra bytes)
}

// NewMessage builds a message from members (a rule's synthetic message).
func NewMessage(fields ...Field) *Message {
	return &Message{node: node{obj: Object{Fields: fields}, parsed: true, isObject: true, dirty: true}}
}

// messageFromRaw wraps the bytes of one message as read from the input.
func messageFromRaw(raw []byte) *Message { return &Message{node: node{raw: raw}} }

// Role returns the message's role ("" when absent or not a string).
func (m *Message) Role() string { return m.kindOf("role") }

// Set replaces or appends a member; setting "content" discards parsed blocks.
func (m *Message) Set(key string, raw []byte) {
	if key == "content" {
		m.blocks, m.blocksLoaded, m.blocksChanged = nil, false, false
	}
	m.node.Set(key, raw)
}

// SetString sets a member to a JSON string.
func (m *Message) SetString(key, s string) { m.Set(key, JSONString(s)) }

// Delete removes a member; deleting "content" discards parsed blocks.
func (m *Message) Delete(key string) bool {
	if key == "content" {
		m.blocks, m.blocksLoaded, m.blocksChanged = nil, false, false
	}
	return m.node.Delete(key)
}

// Get returns a member's raw value; for "content" it reflects block edits.
func (m *Message) Get(key string) ([]byte, bool) {
	if key == "content" {
		m.flushBlocks()
	}
	return m.node.Get(key)
}

// ContentString returns the content when it is a JSON string.
func (m *Message) ContentString() (string, bool) { return m.String("content") }

// Blocks returns the content array's blocks; ok is false when the content is
// absent or not an array. The slice is the message's own: to add or remove
// blocks, build a new slice and call SetBlocks.
func (m *Message) Blocks() (blocks []*Block, ok bool) {
	if !m.blocksLoaded {
		m.blocksLoaded = true
		m.blocks, m.blocksIsArray = nil, false
		if raw, has := m.node.Get("content"); has && len(raw) > 0 && raw[0] == '[' {
			if elems, err := ParseArray(raw); err == nil {
				m.blocksIsArray = true
				m.blocks = make([]*Block, len(elems))
				backing := make([]Block, len(elems)) // one allocation for all the blocks
				for i, e := range elems {
					backing[i].raw = e
					m.blocks[i] = &backing[i]
				}
			}
		}
	}
	return m.blocks, m.blocksIsArray
}

// SetBlocks makes the content an array of the given blocks.
func (m *Message) SetBlocks(blocks []*Block) {
	old, isArray := m.Blocks()
	if isArray && len(old) == len(blocks) {
		same := true
		for i := range old {
			if old[i] != blocks[i] {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	if blocks == nil {
		blocks = []*Block{}
	}
	m.load()
	m.isObject = true
	if !m.obj.Has("content") {
		m.obj.Fields = append(m.obj.Fields, Field{Key: "content", Value: []byte("[]")})
	}
	m.blocks, m.blocksLoaded, m.blocksIsArray, m.blocksChanged = blocks, true, true, true
}

// SetContentString makes the content a JSON string.
func (m *Message) SetContentString(s string) { m.Set("content", JSONString(s)) }

// blocksDirty reports whether the content array must be re-encoded.
func (m *Message) blocksDirty() bool {
	if !m.blocksLoaded || !m.blocksIsArray {
		return false
	}
	if m.blocksChanged {
		return true
	}
	for _, b := range m.blocks {
		if b.Changed() {
			return true
		}
	}
	return false
}

// flushBlocks writes edited blocks back into the content member.
func (m *Message) flushBlocks() {
	if !m.blocksDirty() {
		return
	}
	var buf []byte
	buf = append(buf, '[')
	for i, b := range m.blocks {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = b.AppendJSON(buf)
	}
	buf = append(buf, ']')
	m.node.Set("content", buf)
	// The blocks stay loaded (callers may hold them) and now match the
	// content member, so each one's encoding becomes its raw form.
	for _, b := range m.blocks {
		if b.Changed() {
			b.raw, b.dirty = b.obj.AppendJSON(nil), false
		}
	}
	m.blocksChanged = false
}

// Changed reports whether the message differs from its input bytes.
func (m *Message) Changed() bool { return m.raw == nil || m.dirty || m.blocksDirty() }

// AppendJSON appends the message's encoding: the original bytes when no rule
// changed it, otherwise its members with only the changed values re-encoded.
func (m *Message) AppendJSON(dst []byte) []byte {
	if !m.Changed() {
		return append(dst, m.raw...)
	}
	m.flushBlocks()
	return m.obj.AppendJSON(dst)
}

// JSONString encodes s as a raw JSON string value.
func JSONString(s string) []byte { return AppendString(nil, s) }

// JSONInt encodes n as a raw JSON number value.
func JSONInt(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
