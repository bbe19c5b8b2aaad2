package legacy

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
//
// The content member has one accessor set, and every read sees every
// earlier write, whichever accessor made it: ContentString, Blocks, Get,
// String, Has and IsNull all read the same content, whether a rule last set
// it as a string (SetContentString, Set), as blocks (SetBlocks) or by editing
// a block it holds. The message keeps its members in a node it does not
// embed, so no member accessor can bypass the content.
type Message struct {
	members     node    // the members in input order; "content" holds the encoding of content when it is in sync
	content     content // the content as blocks, once someone asked for them
	invalidText bool    // the decoder saw invalid UTF-8 or a lone surrogate in it (in the padding: no extra bytes)
}

// content is a message's content array as blocks. While the blocks match
// the content member's bytes, stale is false; an edit to the blocks makes
// the member stale, and the next read of the member re-encodes it.
type content struct {
	blocks  []*Block
	loaded  bool // blocks were parsed from (or set into) the content member
	isArray bool // the content is a JSON array
	changed bool // the block list itself was replaced or a block repaired
}

// NewMessage builds a message from members (a rule's synthetic message).
func NewMessage(fields ...Field) *Message {
	return &Message{members: node{obj: Object{Fields: fields}, parsed: true, isObject: true, dirty: true}}
}

// messageFromRaw wraps the bytes of one message as read from the input.
func messageFromRaw(raw []byte) *Message { return &Message{members: node{raw: raw}} }

// IsObject reports whether the message is a JSON object. Non-object entries
// (null, strings, numbers) have no members and are dropped by the rules that
// the spec says drop them.
func (m *Message) IsObject() bool { return m.members.IsObject() }

// Raw returns the original bytes, or nil for a message built by a rule.
func (m *Message) Raw() []byte { return m.members.raw }

// member returns the node to read key from, with the content member brought
// up to date with edited blocks first when key is "content".
func (m *Message) member(key string) *node {
	if key == "content" {
		m.syncContent()
	}
	return &m.members
}

// Get returns a member's raw value.
func (m *Message) Get(key string) ([]byte, bool) { return m.member(key).Get(key) }

// Has reports whether a member is present.
func (m *Message) Has(key string) bool { return m.member(key).Has(key) }

// String returns a member's value when it is a JSON string.
func (m *Message) String(key string) (string, bool) { return m.member(key).String(key) }

// Bool returns a member's value when it is a JSON boolean.
func (m *Message) Bool(key string) (value, ok bool) { return m.member(key).Bool(key) }

// Number returns a member's value when it is a JSON number.
func (m *Message) Number(key string) (float64, bool) { return m.member(key).Number(key) }

// IsNull reports whether a member is absent or null.
func (m *Message) IsNull(key string) bool { return m.member(key).IsNull(key) }

// Type returns the message's "type" member.
func (m *Message) Type() string { return m.members.Type() }

// Role returns the message's role ("" when absent or not a string).
func (m *Message) Role() string { return m.members.kindOf("role") }

// Set replaces or appends a member; setting "content" replaces the content,
// blocks included.
func (m *Message) Set(key string, raw []byte) {
	if key == "content" {
		m.content = content{}
	}
	m.members.Set(key, raw)
}

// SetString sets a member to a JSON string.
func (m *Message) SetString(key, s string) { m.Set(key, JSONString(s)) }

// Delete removes a member; deleting "content" removes the content, blocks
// included.
func (m *Message) Delete(key string) bool {
	if key == "content" {
		m.content = content{}
	}
	return m.members.Delete(key)
}

// ContentString returns the content when it is a JSON string.
func (m *Message) ContentString() (string, bool) { return m.String("content") }

// SetContentString makes the content a JSON string.
func (m *Message) SetContentString(s string) { m.Set("content", JSONString(s)) }

// Blocks returns the content array's blocks; ok is false when the content is
// absent or not an array. The slice is the message's own: to add or remove
// blocks, build a new slice and call SetBlocks. Editing a block in it edits
// the message.
func (m *Message) Blocks() (blocks []*Block, ok bool) {
	if !m.content.loaded {
		m.content = content{loaded: true}
		if raw, has := m.members.Get("content"); has && len(raw) > 0 && raw[0] == '[' {
			if elems, err := ParseArray(raw); err == nil {
				m.content.isArray = true
				m.content.blocks = make([]*Block, len(elems))
				backing := make([]Block, len(elems)) // one allocation for all the blocks
				for i, e := range elems {
					backing[i].raw = e
					m.content.blocks[i] = &backing[i]
				}
			}
		}
	}
	return m.content.blocks, m.content.isArray
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
	if !m.members.Has("content") {
		m.members.Set("content", []byte("[]")) // its place; the blocks are encoded there when read
	}
	m.content = content{blocks: blocks, loaded: true, isArray: true, changed: true}
}

// contentStale reports whether the blocks hold edits the content member
// does not have yet.
func (m *Message) contentStale() bool {
	c := &m.content
	if !c.loaded || !c.isArray {
		return false
	}
	if c.changed {
		return true
	}
	for _, b := range c.blocks {
		if b.Changed() {
			return true
		}
	}
	return false
}

// syncContent re-encodes the content member from edited blocks. It changes
// no value a reader sees, only where it is kept: the blocks stay (callers
// may hold them) and each edited one's encoding becomes its raw form.
func (m *Message) syncContent() {
	if !m.contentStale() {
		return
	}
	var buf []byte
	buf = append(buf, '[')
	for i, b := range m.content.blocks {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = b.AppendJSON(buf)
	}
	buf = append(buf, ']')
	m.members.Set("content", buf)
	for _, b := range m.content.blocks {
		if b.Changed() {
			b.raw, b.dirty = b.obj.AppendJSON(nil), false
		}
	}
	m.content.changed = false
}

// Changed reports whether the message differs from its input bytes.
func (m *Message) Changed() bool {
	return m.members.raw == nil || m.members.dirty || m.contentStale()
}

// AppendJSON appends the message's encoding: the original bytes when no rule
// changed it, otherwise its members with only the changed values re-encoded.
func (m *Message) AppendJSON(dst []byte) []byte {
	if !m.Changed() {
		return append(dst, m.members.raw...)
	}
	m.syncContent()
	return m.members.obj.AppendJSON(dst)
}

// JSONString encodes s as a raw JSON string value.
func JSONString(s string) []byte { return AppendString(nil, s) }

// JSONInt encodes n as a raw JSON number value.
func JSONInt(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
