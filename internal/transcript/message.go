package transcript

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// node is a JSON value read from a tape (jsontape.Tape: its members are
// spans of the input, read in place), or held by the overlay once a rule
// edited it, or built by a rule. Reads change nothing a reader can see: a
// message read by one goroutine may be read by any other at the same
// time. The one thing a read keeps is memo, published atomically.
type node struct {
	t *jsontape.Tape // the tape the value was read from; nil when built
	n uint32         // its node on t
	// kindValue and flags are the tape node's KindValue and Flags, kept
	// beside n (they fill its padding): Role, Type and IsObject, which
	// nearly every rule asks of every message and block, read no tape
	// entry (see viewOf). kindValue stays while rules edit the value, until
	// a write may change its member (forget): a rule's first write to a
	// message (usage, an id, the details strip) must not make every later
	// rule's Role read its overlay, which lies elsewhere in memory.
	kindValue uint8
	flags     jsontape.Flags
	// stopValue is the tape node's StopValue, kept the same way: a
	// message's StopReason reads no tape entry, nor its overlay, either.
	stopValue uint8
	// usageWhole is the tape node's UsageWhole mark, kept the same way: the
	// usage rule and the facts of an edited message know a whole usage
	// without finding or reading it. A write of "usage" drops it.
	usageWhole bool
	ov         *overlay // the value's own members, once edited (or built)
	// memo is the long escaped string member last decoded (String): a
	// block's text or a tool result's is read by several rules in a row,
	// and decoding it each time cost an allocation of its size. Every
	// goroutine would decode the same text from the same read-only
	// bytes, so which one publishes it changes no result.
	memo atomic.Pointer[memoHeader]
}

// viewOf is the node of tape node ni of t.
func viewOf(t *jsontape.Tape, ni uint32) node {
	tn := &t.Nodes[ni]
	return node{t: t, n: ni, kindValue: tn.KindValue, flags: tn.Flags, stopValue: tn.StopValue, usageWhole: tn.Marks&jsontape.UsageWhole != 0}
}

// live panics, as every read of a released tape does (jsontape.Tape.Release),
// when the node's tape was released: a read of the fields the node keeps
// (kindValue, flags) must fail like a read of the tape, not outlive it.
func (n *node) live() { _ = n.t.Nodes[n.n] }

// memoHeader opens a memo's one allocation: the member's index on the tape
// and the text's length (little endian, four bytes each), the text's bytes
// right after it.
type memoHeader [8]byte

// memoized returns the memo's text when it is member i's.
func (n *node) memoized(i uint32) (string, bool) {
	h := n.memo.Load()
	if h == nil || binary.LittleEndian.Uint32(h[0:4]) != i {
		return "", false
	}
	size := binary.LittleEndian.Uint32(h[4:8])
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(h), len(h))), size), true
}

// decodeMemo decodes member i's escaped string value raw and keeps it in
// the memo.
func (n *node) decodeMemo(i uint32, raw []byte) (string, bool) {
	buf, ok := jsontape.AppendUnquoted(make([]byte, len(memoHeader{}), len(memoHeader{})+len(raw)), raw)
	if !ok {
		return "", false
	}
	h := (*memoHeader)(buf)
	binary.LittleEndian.PutUint32(h[0:4], i)
	binary.LittleEndian.PutUint32(h[4:8], uint32(len(buf)-len(h)))
	n.memo.Store(h)
	return unsafe.String(unsafe.SliceData(buf[len(h):]), len(buf)-len(h)), true
}

// memoLen is the shortest raw string value String keeps decoded: roles,
// types and ids are cheaper to decode again than to keep.
const memoLen = 64

// overlay is a value's members once a rule wrote one. A write that
// replaces one member the tape has keeps only that member (a patch:
// patched is set, obj.Fields is that one member with its new value, and
// the other members are read from the tape), so an id or usage edit of a
// long history holds one member per edited value, not a copy of every
// member. Any other write (a member added or deleted, a second member
// replaced, a repair) copies the members from the tape first (the values
// still alias the input), then edits them. Either way a write costs one
// allocation: the members live beside the overlay (ownedOverlay,
// patchOverlay).
type overlay struct {
	raw      []byte // original encoding; nil for values built by a rule
	obj      Object
	isObject bool
	dirty    bool
	// owned is set when obj.Fields is an array the overlay made for itself
	// (own), which nothing else holds: a member is deleted in place, not
	// by a copy of the others (the details strip deletes a member of
	// every tool result that has one).
	owned bool
	// patched is 1 + the tape index (in Members) of the member obj.Fields[0]
	// replaces, when the overlay is a patch; 0 when obj holds every member.
	patched uint32
}

// ownedOverlay is an overlay with room for the members of a message or
// block in the same allocation (384 bytes).
type ownedOverlay struct {
	overlay
	inline [8]Field
}

// patchOverlay is a patch's overlay with its one member (96 bytes).
type patchOverlay struct {
	overlay
	field [1]Field
}

// tapeNode is the value's entry on its tape; only for nodes with no overlay.
func (n *node) tapeNode() *jsontape.Node { return &n.t.Nodes[n.n] }

// own gives the node an overlay holding every member, copied from the
// tape (a patch's member with its new value), for a write.
func (n *node) own() *overlay {
	if n.ov != nil && n.ov.patched == 0 {
		return n.ov
	}
	tn := n.tapeNode()
	o := &ownedOverlay{overlay: overlay{raw: n.t.Raw(tn), isObject: tn.Flags&jsontape.IsObject != 0, owned: true}}
	ov := &o.overlay
	if ov.isObject {
		ms := n.t.MemberOf(tn)
		fields := o.inline[:0]
		if len(ms) > len(o.inline) {
			fields = make([]Field, 0, len(ms)+1)
		}
		for i := range ms {
			fields = append(fields, Field{Key: memberKey(n.t, &ms[i]), Value: n.memberValue(tn.First + uint32(i))})
		}
		ov.obj.Fields = fields
	}
	if p := n.ov; p != nil {
		ov.dirty = p.dirty
	}
	n.ov = ov
	return ov
}

// patch gives the node a patch overlay: tape member i's value replaced by
// raw, the other members left on the tape.
func (n *node) patch(i uint32, raw []byte) {
	tn := n.tapeNode()
	p := &patchOverlay{overlay: overlay{raw: n.t.Raw(tn), isObject: true, dirty: true, patched: i + 1}}
	p.field[0] = Field{Key: memberKey(n.t, &n.t.Members[i]), Value: raw}
	p.obj.Fields = p.field[:]
	n.forget(p.field[0].Key)
	n.ov = &p.overlay
}

// memberValue is tape member i's value, the patch's where a write
// replaced it.
func (n *node) memberValue(i uint32) []byte {
	if ov := n.ov; ov != nil && ov.patched == i+1 {
		return ov.obj.Fields[0].Value
	}
	return n.t.Value(&n.t.Members[i])
}

// memberCount is the number of members of an object value.
func (n *node) memberCount() int {
	if ov := n.ov; ov != nil && ov.patched == 0 {
		return len(ov.obj.Fields)
	}
	return int(n.tapeNode().Count)
}

// member returns member i's key and value, in the order they are
// encoded.
func (n *node) member(i int) (string, []byte) {
	if ov := n.ov; ov != nil && ov.patched == 0 {
		f := &ov.obj.Fields[i]
		return f.Key, f.Value
	}
	at := n.tapeNode().First + uint32(i)
	return memberKey(n.t, &n.t.Members[at]), n.memberValue(at)
}

// numberedKey reports whether member i's key, as member returns it, is one
// the tape knows by number: one of KeyNames, plain ASCII
// (TestKeyNamesArePlain), which AppendString writes as it is between two
// quotes, so its bytes need not be scanned.
func (n *node) numberedKey(i int) bool {
	ov := n.ov
	return (ov == nil || ov.patched != 0) && n.t.Members[n.tapeNode().First+uint32(i)].KeyID != 0
}

// memberKeyLen is len(AppendString(nil, key)) for member i's key as
// member returns it.
func (n *node) memberKeyLen(i int, key string) int {
	if n.numberedKey(i) {
		return len(key) + 2
	}
	return stringLen(key)
}

// appendMemberKey is AppendString(dst, key) for member i's key as member
// returns it.
func (n *node) appendMemberKey(dst []byte, i int, key string) []byte {
	if n.numberedKey(i) {
		return append(append(append(dst, '"'), key...), '"')
	}
	return AppendString(dst, key)
}

// appendObject appends the compact encoding of an object value's members,
// as Object.AppendJSON writes them.
func (n *node) appendObject(dst []byte) []byte {
	dst = append(dst, '{')
	for i := range n.memberCount() {
		if i > 0 {
			dst = append(dst, ',')
		}
		key, value := n.member(i)
		dst = append(append(n.appendMemberKey(dst, i, key), ':'), value...)
	}
	return append(dst, '}')
}

// memberKey is member m's key: a common one as the program's constant
// (jsontape.KeyNames), which Object.index compares without reading the
// input, others as Tape.Key reads them.
func memberKey(t *jsontape.Tape, m *jsontape.Member) string {
	if m.KeyID != 0 {
		return jsontape.KeyNames[m.KeyID]
	}
	return t.Key(m)
}

// setRaw replaces the value's bytes as read (text repair of a non-object):
// not a change of its members.
func (n *node) setRaw(raw []byte) {
	ov := n.own()
	ov.raw = raw
	n.kindValue, n.stopValue, n.usageWhole = 0, 0, false
	if !ov.isObject {
		return
	}
	obj, err := ParseObject(raw)
	ov.obj, ov.isObject = obj, err == nil
}

// IsObject reports whether the value is a JSON object. Non-object entries
// (null, strings, numbers) have no members and are dropped by the rules that
// the spec says drop them.
func (n *node) IsObject() bool {
	if n.ov != nil {
		return n.ov.isObject
	}
	n.live()
	return n.flags&jsontape.IsObject != 0
}

// Raw returns the original bytes, or nil for a value built by a rule.
func (n *node) Raw() []byte {
	if n.ov != nil {
		return n.ov.raw
	}
	return n.t.Raw(n.tapeNode())
}

// span returns the value's bytes as they are written when it is not
// re-encoded (Raw) as a span of its tape's input: ok is false when they are
// not the input's (a value built by a rule, or whose bytes a repair
// replaced).
func (n *node) span() (data []byte, off, end uint32, ok bool) {
	if n.t == nil {
		return nil, 0, 0, false
	}
	tn := n.tapeNode()
	if n.ov != nil && (len(n.ov.raw) != int(tn.End-tn.Off) || len(n.ov.raw) == 0 ||
		unsafe.SliceData(n.ov.raw) != &n.t.Data[tn.Off]) {
		return nil, 0, 0, false
	}
	return n.t.Data, tn.Off, tn.End, true
}

// Get returns the raw JSON value of a member.
func (n *node) Get(key string) ([]byte, bool) {
	if n.ov != nil && n.ov.patched == 0 {
		return n.ov.obj.Get(key)
	}
	if i := n.t.Find(n.tapeNode(), key); i != jsontape.NoMember {
		return n.memberValue(i), true
	}
	return nil, false
}

// Has reports whether a member is present.
func (n *node) Has(key string) bool { _, ok := n.Get(key); return ok }

// plain returns member key's tape entry when the decode marked its value
// with mark (jsontape.PlainStart: its first character is printable ASCII
// other than a space, a quote or a backslash, so it is not blank;
// jsontape.PlainEnds: its last one too, so strings.TrimSpace leaves it as
// it is), and no rule wrote it since: IsBlank or a trimmed comparison then
// need not read it. nil otherwise.
func (n *node) plain(key string, mark jsontape.Flags) *jsontape.Member {
	if n.t == nil || n.ov != nil && n.ov.patched == 0 {
		return nil
	}
	i := n.t.Find(n.tapeNode(), key)
	if i == jsontape.NoMember || n.ov != nil && n.ov.patched == i+1 {
		return nil
	}
	if m := &n.t.Members[i]; m.Flags&mark != 0 {
		return m
	}
	return nil
}

// NonBlank reports whether member key is a string that is not blank
// (IsBlank): from the tape alone when the decode marked its start plain
// (jsontape.PlainStart), else by reading it.
func (n *node) NonBlank(key string) bool {
	if n.plain(key, jsontape.PlainStart) != nil {
		return true
	}
	s, ok := n.String(key)
	return ok && !IsBlank(s)
}

// TrimmedIsNot reports that member key's value is a string that
// strings.TrimSpace does not make want (which holds no backslash), from
// what the decode marked of it and at most its first bytes. Its start must
// be plain (jsontape.PlainStart: nothing to trim there). Then, when its end
// is plain too and it holds no escape, its length decides, read from the
// tape alone; else its first bytes do, up to the first that differs from
// want's (it is not want) or is a backslash (an escape may spell want's
// next character: the tape cannot tell). False when it cannot tell: the
// caller reads the value.
func (n *node) TrimmedIsNot(key, want string) bool {
	m := n.plain(key, jsontape.PlainStart)
	if m == nil {
		return false
	}
	if m.Flags&(jsontape.PlainEnds|jsontape.Escaped) == jsontape.PlainEnds {
		return int(m.ValEnd-m.Val) != len(want)+2
	}
	content := n.t.Data[m.Val+1 : m.ValEnd-1] // decodes to no more bytes than it has
	for i := range len(want) {
		switch {
		case i == len(content):
			return true // shorter than want
		case content[i] == '\\':
			return false
		case content[i] != want[i]:
			return true
		}
	}
	return false
}

// String returns a member's value when it is a JSON string: a view of the
// input when it holds no escape, else its decoded text (see memo).
func (n *node) String(key string) (string, bool) {
	if n.ov != nil && n.ov.patched == 0 {
		return n.ov.obj.String(key)
	}
	i := n.t.Find(n.tapeNode(), key)
	if i == jsontape.NoMember {
		return "", false
	}
	if n.ov != nil && n.ov.patched == i+1 {
		return n.ov.obj.String(key) // the patch's one member
	}
	m := &n.t.Members[i]
	if m.Flags&jsontape.Escaped == 0 || m.ValEnd-m.Val < memoLen {
		return n.t.String(m)
	}
	if text, ok := n.memoized(i); ok {
		return text, true
	}
	return n.decodeMemo(i, n.t.Value(m))
}

// StringSize returns the length of member key's value as written in JSON,
// quotes excluded, when it is a string: an escape counts its every byte,
// so it is never below the decoded text's length. From the tape alone
// when no rule wrote the value (jsontape.StringValue), else from its bytes.
func (n *node) StringSize(key string) (int, bool) {
	if n.t != nil && (n.ov == nil || n.ov.patched != 0) { // the tape's members, one value perhaps patched
		i := n.t.Find(n.tapeNode(), key)
		if i == jsontape.NoMember {
			return 0, false
		}
		if n.ov == nil || n.ov.patched != i+1 {
			if m := &n.t.Members[i]; m.Flags&jsontape.StringValue != 0 {
				return int(m.ValEnd-m.Val) - 2, true
			}
			return 0, false
		}
	}
	raw, ok := n.Get(key)
	if !ok || len(raw) < 2 || raw[0] != '"' {
		return 0, false
	}
	return len(raw) - 2, true
}

// Bool returns a member's value when it is a JSON boolean.
func (n *node) Bool(key string) (value, ok bool) { v, _ := n.Get(key); return boolValue(v) }

// Number returns a member's value when it is a JSON number.
func (n *node) Number(key string) (float64, bool) { v, _ := n.Get(key); return numberValue(v) }

// IsNull reports whether a member is absent or null.
func (n *node) IsNull(key string) bool { v, ok := n.Get(key); return !ok || string(v) == "null" }

// kind returns the string value of the member the tape keeps the place of
// (a message's role, a block's type), which every rule reads of every
// message and block.
func (n *node) kind(key string) string {
	if n.kindValue != 0 {
		if n.ov == nil {
			n.live()
		}
		return jsontape.KindValues[n.kindValue]
	}
	if n.ov != nil {
		s, _ := n.String(key)
		return s
	}
	return n.t.KindString(n.tapeNode())
}

// stopReason is a message's "stopReason" string member (Message.StopReason).
// A message whose stop reason is one of spec §1.2's, and no rule wrote it
// since, answers from the value the decode recorded (stopValue), reading
// no tape entry and no overlay.
func (n *node) stopReason() string {
	if n.stopValue != 0 {
		if n.ov == nil {
			n.live()
		}
		return jsontape.KindValues[n.stopValue]
	}
	s, _ := n.String("stopReason")
	return s
}

// Set replaces or appends a member (raw JSON value) and marks the value
// changed when the bytes differ. The first write of a member the tape has
// is a patch (see overlay), as is a later write of the same member.
func (n *node) Set(key string, raw []byte) {
	switch ov := n.ov; {
	case ov == nil:
		i := n.t.Find(n.tapeNode(), key)
		if i == jsontape.NoMember {
			break
		}
		if !bytes.Equal(n.t.Value(&n.t.Members[i]), raw) {
			n.patch(i, raw)
		}
		return // unchanged bytes: the value stays a view of the tape
	case ov.patched != 0 && ov.obj.Fields[0].Key == key:
		ov.obj.Fields[0].Value = raw
		return
	}
	ov := n.own()
	ov.isObject = true
	if ov.obj.Set(key, raw) {
		ov.dirty = true
		n.forget(key)
	}
}

// forget drops the kept kind, stop reason or whole usage (kindValue,
// stopValue, usageWhole) when key may be its member.
func (n *node) forget(key string) {
	switch key {
	case "role", "type":
		n.kindValue = 0
	case "stopReason":
		n.stopValue = 0
	case "usage":
		n.usageWhole = false
	}
}

// SetString sets a member to a JSON string.
func (n *node) SetString(key, s string) { n.Set(key, JSONString(s)) }

// Delete removes a member and reports whether it was present.
func (n *node) Delete(key string) bool {
	if !n.Has(key) {
		return false
	}
	ov := n.own()
	if i := ov.obj.index(key); ov.owned && i >= 0 {
		ov.obj.Fields = slices.Delete(ov.obj.Fields, i, i+1)
	} else {
		ov.obj.Delete(key)
	}
	ov.dirty = true
	n.forget(key)
	return true
}

// changed reports whether the value must be re-encoded.
func (n *node) changed() bool { return n.ov != nil && (n.ov.raw == nil || n.ov.dirty) }

// boolValue reads a raw JSON boolean.
func boolValue(v []byte) (value, ok bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// numberValue reads a raw JSON number.
func numberValue(v []byte) (float64, bool) {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

// Block is one element of a message's content array.
type Block struct {
	node
}

// Type returns the block's "type" member.
func (b *Block) Type() string { return b.kind("type") }

// NewBlock builds a block from members.
func NewBlock(fields ...Field) *Block {
	return &Block{node{ov: &overlay{obj: Object{Fields: fields}, isObject: true, dirty: true}}}
}

// blockFromRaw wraps the bytes of one content element a rule set as raw
// content.
func blockFromRaw(raw []byte) *Block {
	obj, err := ParseObject(raw)
	return &Block{node{ov: &overlay{raw: raw, obj: obj, isObject: err == nil}}}
}

// TextBlock builds {"type":"text","text":text}.
func TextBlock(text string) *Block {
	return NewBlock(Field{"type", JSONString("text")}, Field{"text", JSONString(text)})
}

// Changed reports whether the block must be re-encoded.
func (b *Block) Changed() bool { return b.changed() }

// Text returns the block's text member when it is a string.
func (b *Block) Text() (string, bool) { return b.String("text") }

// BlankText reports whether the block's text member is missing, not a
// string, or blank (only Unicode white space, as IsBlank). It reads the
// raw JSON string and stops at the first character that is not white
// space, which for almost every text is the first: nothing is decoded.
func (b *Block) BlankText() bool {
	if b.plain("text", jsontape.PlainStart) != nil {
		return false
	}
	raw, _ := b.Get("text")
	return BlankString(raw)
}

// BlankString reports whether raw, a member's JSON value, is not a string
// or is a blank one (only Unicode white space, as IsBlank), reading it as
// BlankText does: for a caller that already holds the text member's bytes.
func BlankString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return true
	}
	body := raw[1 : len(raw)-1]
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			switch body[i+1] {
			case 'n', 't', 'r', 'f':
				i += 2
				continue
			case 'u':
				if r, ok := Hex4(body, i+2); ok && unicode.IsSpace(r) {
					i += 6
					continue
				}
			}
			return false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(body[i:])
			if !unicode.IsSpace(r) {
				return false
			}
			i += size
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			i++
		default:
			return false
		}
	}
	return true
}

// AppendJSON appends the block's encoding: its original bytes when unchanged.
func (b *Block) AppendJSON(dst []byte) []byte {
	if !b.Changed() {
		return append(dst, b.Raw()...)
	}
	return b.appendObject(dst)
}

// Message is one entry of a transcript's message list (spec §1.2). A
// message read from the input is a view of its tape; a rule's first write
// copies its members beside it. A message that no rule changed is written
// back as its original bytes.
//
// The content member has one accessor set, and every read sees every
// earlier write, whichever accessor made it: ContentString, Blocks, Get,
// String, Has and IsNull all read the same content, whether a rule last set
// it as a string (SetContentString, Set), as blocks (SetBlocks) or by editing
// a block it holds. The message keeps its members in a node it does not
// embed, so no member accessor can bypass the content. Reads change
// nothing: content edited as blocks is encoded by the read that asks for
// its bytes, each time.
type Message struct {
	members     node     // the members in input order
	blocks      []*Block // the content as blocks, when it is an array
	isArray     bool     // the content is a JSON array
	changed     bool     // the block list itself was replaced or a block repaired
	invalidText bool     // the decoder saw invalid UTF-8 or a lone surrogate in it
	facts       Facts    // what the decode recorded it holds (see Facts)
}

// NewMessage builds a message from members (a rule's synthetic message).
func NewMessage(fields ...Field) *Message {
	m := &Message{members: node{ov: &overlay{obj: Object{Fields: fields}, isObject: true, dirty: true}}}
	m.loadContent()
	return m
}

// loadContent sets the blocks from the content member's bytes: a write
// of the content as bytes splits them at once, so no read has to.
func (m *Message) loadContent() {
	m.blocks, m.isArray, m.changed = nil, false, false
	raw, ok := m.members.Get("content")
	if !ok || len(raw) == 0 || raw[0] != '[' {
		return
	}
	elems, err := ParseArray(raw)
	if err != nil {
		return
	}
	m.isArray = true
	m.blocks = make([]*Block, len(elems))
	for i, e := range elems {
		m.blocks[i] = blockFromRaw(e)
	}
}

// IsObject reports whether the message is a JSON object. Non-object entries
// (null, strings, numbers) have no members and are dropped by the rules that
// the spec says drop them.
func (m *Message) IsObject() bool { return m.members.IsObject() }

// Raw returns the original bytes, or nil for a message built by a rule.
func (m *Message) Raw() []byte { return m.members.Raw() }

// value returns a member's raw value, the content encoded from its
// blocks when they hold edits.
func (m *Message) value(key string) ([]byte, bool) {
	if key == "content" && m.contentStale() {
		return m.appendContent(nil), true
	}
	return m.members.Get(key)
}

// Get returns a member's raw value.
func (m *Message) Get(key string) ([]byte, bool) { return m.value(key) }

// Has reports whether a member is present.
func (m *Message) Has(key string) bool { return m.members.Has(key) }

// String returns a member's value when it is a JSON string.
func (m *Message) String(key string) (string, bool) {
	if key == "content" && m.isArray {
		return "", false // an array: its bytes (in the input, not yet read) need not be
	}
	return m.members.String(key)
}

// StringSize returns the length of member key's JSON string as written,
// quotes excluded (node.StringSize).
func (m *Message) StringSize(key string) (int, bool) {
	if key == "content" && m.isArray {
		return 0, false
	}
	return m.members.StringSize(key)
}

// Bool returns a member's value when it is a JSON boolean.
func (m *Message) Bool(key string) (value, ok bool) { v, _ := m.value(key); return boolValue(v) }

// Number returns a member's value when it is a JSON number.
func (m *Message) Number(key string) (float64, bool) { v, _ := m.value(key); return numberValue(v) }

// IsNull reports whether a member is absent or null.
func (m *Message) IsNull(key string) bool {
	v, ok := m.value(key)
	return !ok || string(v) == "null"
}

// Type returns the message's "type" member.
func (m *Message) Type() string { s, _ := m.members.String("type"); return s }

// Role returns the message's role ("" when absent or not a string).
func (m *Message) Role() string { return m.members.kind("role") }

// UsageWhole reports whether the message's first usage is a whole plain
// usage (jsontape.NormalUsage), as the decode recorded it and no rule
// wrote it since: it is then known without reading it. False says
// nothing: read the usage.
func (m *Message) UsageWhole() bool {
	if m.members.usageWhole && m.members.ov == nil {
		m.members.live()
	}
	return m.members.usageWhole
}

// Set replaces or appends a member; setting "content" replaces the content,
// blocks included.
func (m *Message) Set(key string, raw []byte) {
	m.members.Set(key, raw)
	if key == "content" {
		m.loadContent()
	}
}

// SetString sets a member to a JSON string.
func (m *Message) SetString(key, s string) { m.Set(key, JSONString(s)) }

// Delete removes a member; deleting "content" removes the content, blocks
// included.
func (m *Message) Delete(key string) bool {
	if key != "content" {
		return m.members.Delete(key)
	}
	ok := m.members.Delete(key)
	m.loadContent()
	return ok
}

// ContentString returns the content when it is a JSON string.
func (m *Message) ContentString() (string, bool) { return m.String("content") }

// SetContentString makes the content a JSON string.
func (m *Message) SetContentString(s string) { m.Set("content", JSONString(s)) }

// Blocks returns the content array's blocks; ok is false when the content is
// absent or not an array. The slice is the message's own: to add or remove
// blocks, build a new slice and call SetBlocks. Editing a block in it edits
// the message.
func (m *Message) Blocks() (blocks []*Block, ok bool) { return m.blocks, m.isArray }

// SetBlocks makes the content an array of the given blocks.
func (m *Message) SetBlocks(blocks []*Block) {
	if m.isArray && len(m.blocks) == len(blocks) {
		same := true
		for i := range blocks {
			if m.blocks[i] != blocks[i] {
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
	m.blocks, m.isArray, m.changed = blocks, true, true
}

// contentStale reports whether the blocks hold edits the content member
// does not have.
func (m *Message) contentStale() bool {
	if !m.isArray {
		return false
	}
	if m.changed {
		return true
	}
	for _, b := range m.blocks {
		if b.Changed() {
			return true
		}
	}
	return false
}

// appendContent appends the content array encoded from the blocks.
func (m *Message) appendContent(dst []byte) []byte {
	dst = append(dst, '[')
	for i, b := range m.blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = b.AppendJSON(dst)
	}
	return append(dst, ']')
}

// Changed reports whether the message differs from its input bytes. Blocks
// edited back to bytes equal to the content's are no change.
func (m *Message) Changed() bool {
	if m.members.changed() {
		return true
	}
	if !m.contentStale() {
		return false
	}
	raw, _ := m.members.Get("content")
	buf := contentScratch.Get().(*[]byte)
	encoded := m.appendContent((*buf)[:0])
	same := bytes.Equal(encoded, raw)
	*buf = encoded
	contentScratch.Put(buf)
	return !same
}

// contentScratch holds the buffers Changed encodes a content array into to
// compare it with its input bytes. The encoding is thrown away once
// compared: a new buffer per call was garbage the size of every edited
// message's content, each time a rule asked (assistant replay asks of
// every assistant: 0.55x of a damaged 100k-message history's input).
var contentScratch = sync.Pool{New: func() any { return new([]byte) }}

// MayDiffer reports whether the message may differ from its input bytes:
// Changed without encoding edited blocks to compare them. It is true of
// every message a rule edited, also one edited back to its input bytes,
// and costs no encoding: a rule that asks of every message whether some
// rule touched it, and would judge an untouched one again for nothing,
// asks this.
func (m *Message) MayDiffer() bool { return m.members.changed() || m.contentStale() }

// AppendJSON appends the message's encoding: the original bytes when no rule
// changed it, otherwise its members with only the changed values re-encoded.
func (m *Message) AppendJSON(dst []byte) []byte {
	if !m.MayDiffer() {
		return append(dst, m.Raw()...)
	}
	start := len(dst)
	w := messageWriter{m: m, stale: m.contentStale()}
	dst = append(dst, '{')
	for i := range m.members.memberCount() {
		key, value := m.members.member(i)
		dst = w.member(dst, i, key, value)
	}
	if !m.members.changed() && !w.stale {
		return append(dst[:start], m.Raw()...) // unchanged once its blocks are folded back
	}
	return append(dst, '}')
}

// messageWriter is the state of one AppendJSON: whether the content is
// still to be encoded from its blocks. Its member method takes and returns
// the buffer (a closure that captured it would write it through the heap,
// a write barrier per member while the collector runs).
type messageWriter struct {
	m                  *Message
	stale, seenContent bool
}

// member appends member i (a comma before all but the first).
func (w *messageWriter) member(dst []byte, i int, key string, value []byte) []byte {
	if i > 0 {
		dst = append(dst, ',')
	}
	dst = append(w.m.members.appendMemberKey(dst, i, key), ':')
	if w.stale && !w.seenContent && key == "content" {
		at := len(dst)
		if dst = w.m.appendContent(dst); !w.m.members.changed() && bytes.Equal(dst[at:], value) {
			w.stale = false // the blocks encode to the content as it was: no change
		}
	} else {
		dst = append(dst, value...)
	}
	w.seenContent = w.seenContent || key == "content"
	return dst
}

// EncodedLen is len(m.AppendJSON(nil)) without writing it: its input's
// length when it may not differ, else the lengths of its member names as
// AppendString writes them and of its values, the content's blocks
// included. A message whose members are its input's but whose blocks were
// edited may fold back to its input bytes (AppendJSON), which only an
// encoding of the blocks tells when they are as long as its content was:
// that one is encoded. A rule that only
// needs the size of the request (request_size, the contract) does not
// copy every changed message for it.
func (m *Message) EncodedLen() int {
	if !m.MayDiffer() {
		return len(m.Raw())
	}
	if !m.members.changed() {
		if raw, _ := m.members.Get("content"); m.contentLen() == len(raw) {
			return len(m.AppendJSON(nil)) // the blocks may encode to the content as it was
		}
	}
	stale, seenContent := m.contentStale(), false
	count := m.members.memberCount()
	n := 2 + max(count-1, 0)
	for i := range count {
		key, value := m.members.member(i)
		n += m.members.memberKeyLen(i, key) + 1
		if stale && !seenContent && key == "content" {
			n += m.contentLen()
		} else {
			n += len(value)
		}
		seenContent = seenContent || key == "content"
	}
	return n
}

// contentLen is the length of appendContent's encoding.
func (m *Message) contentLen() int {
	n := 2 + max(len(m.blocks)-1, 0)
	for _, b := range m.blocks {
		if !b.Changed() {
			n += len(b.Raw())
			continue
		}
		count := b.memberCount()
		n += 2 + max(count-1, 0)
		for i := range count {
			key, value := b.member(i)
			n += b.memberKeyLen(i, key) + 1 + len(value)
		}
	}
	return n
}

// stringLen is len(AppendString(nil, s)): a name of printable ASCII
// without a quote or backslash (every common one) is written as it is.
func stringLen(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return len(AppendString(nil, s))
		}
	}
	return len(s) + 2
}

// EachWritten calls f, in the order AppendJSON writes them, with the
// values of the message's encoding that are not bytes of its own input:
// those a rule wrote, in its members and in its content's blocks. The
// rest of the encoding is its input's bytes as read, and member names
// AppendString wrote (valid UTF-8, with no surrogate escape). A check of
// the encoding's text (contract.Check) reads only these when the decoder
// found the input's valid (HasInvalidText). It returns false, calling
// nothing, for a message that is not an object.
func (m *Message) EachWritten(f func(value []byte)) bool {
	if !m.members.IsObject() {
		return false
	}
	if !m.MayDiffer() {
		m.members.written(m.Raw(), f)
		return true
	}
	stale := m.contentStale()
	seenContent := false
	member := func(key string, value []byte) {
		if stale && !seenContent && key == "content" {
			for _, b := range m.blocks {
				b.eachWritten(&m.members, f)
			}
		} else {
			m.members.written(value, f)
		}
		seenContent = seenContent || key == "content"
	}
	for i := range m.members.memberCount() {
		member(m.members.member(i))
	}
	return true
}

// eachWritten is EachWritten for one content block of the message whose
// members are in.
func (b *Block) eachWritten(in *node, f func(value []byte)) {
	if !b.Changed() {
		in.written(b.Raw(), f)
		return
	}
	for i := range b.memberCount() {
		_, value := b.member(i)
		in.written(value, f)
	}
}

// written calls f with v unless it lies within the bytes n was read from.
func (n *node) written(v []byte, f func(value []byte)) {
	if len(v) == 0 {
		return
	}
	if n.t != nil {
		tn := n.tapeNode()
		base := uintptr(unsafe.Pointer(unsafe.SliceData(n.t.Data)))
		at := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
		if at >= base+uintptr(tn.Off) && at+uintptr(len(v)) <= base+uintptr(tn.End) {
			return
		}
	}
	f(v)
}

// JSONString encodes s as a raw JSON string value.
func JSONString(s string) []byte { return AppendString(nil, s) }

// JSONInt encodes n as a raw JSON number value.
func JSONInt(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
