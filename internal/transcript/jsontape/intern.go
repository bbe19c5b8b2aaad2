package jsontape

import (
	"encoding/binary"
	"unsafe"
)

// internKey returns the common member names as the program's own string
// constants. Rules look members up by these names many times per message;
// an interned key compares equal to the caller's literal without reading
// the input bytes it was decoded from (runtime.memequal sees the same
// pointer; the linker keeps one copy of each string literal), so a lookup
// touches no cold input memory.
func internKey(key string) string {
	if id := keyID(key); id != 0 {
		return KeyNames[id]
	}
	return key
}

// KeyNames are the member names internKey knows, each a number on the tape
// (Member.KeyID); index 0 is no name. Find compares these numbers, so a
// lookup of a common member reads no input byte.
var KeyNames = [...]string{"", "role", "content", "type", "text", "id", "name", "data", "timestamp", "toolName", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id", "usage", "mimeType", "thinking", "thinkingSignature", "signature", "textSignature", "provider", "api", "model", "isError", "is_error", "details", "summary", "stopReason", "errorMessage", "input", "arguments", "partialJson", "cost", "redacted", "customType", "thought_signature", "provenance", "seq", "message", "responseId"}

// The KeyNames indexes the scan itself compares with (TestKeyNumbers).
const (
	keyRole    = 1
	keyContent = 2
	keyType    = 3
	// keyStopReason is "stopReason" (Node.StopValue).
	keyStopReason = 29
	// keyName, keyToolName and keyUsage are "name", "toolName" and
	// "usage" (Node.Marks).
	keyName     = 6
	keyToolName = 9
	keyUsage    = 16
)

// Node.Keys has a bit per KeyNames entry.
var _ = [64 - len(KeyNames)]struct{}{}

// keyID returns the index of key in KeyNames, or 0. The rules look
// members up by string constants, and the linker keeps one copy of each
// string constant's bytes, so a caller's "toolCallId" is the bytes of
// KeyNames' own: such a key is known by its address (keyAddrs), with no
// hash of its bytes; any other string by its name (keyNames).
func keyID(key string) uint8 {
	if id, ok := keyAddrs.lookup(key); ok {
		return id
	}
	return keyNames.index(key)
}

// lookup returns the index in KeyNames of key, and true, when key's bytes
// are those of a KeyNames entry; else false. It is small enough to be
// inlined into Tape.Find.
func (t *keyAddrTable) lookup(key string) (uint8, bool) {
	at := uintptr(unsafe.Pointer(unsafe.StringData(key)))
	e := &t.slots[uint32(at)*t.mult>>(32-keyAddrBits)]
	return e.id, e.at == at && e.size == len(key)
}

// keyAddrs finds the index in KeyNames of a string whose bytes are those
// of KeyNames' own entry: a perfect hash of the entries' addresses.
var keyAddrs = newKeyAddrTable()

// keyAddrBits is the size of keyAddrs' table: 1<<keyAddrBits slots.
const keyAddrBits = 9

// keyAddrTable maps the address of each KeyNames entry's bytes (static
// data: it never moves) to its index. A slot of no entry has address 0,
// which no string's bytes have.
type keyAddrTable struct {
	mult  uint32
	slots [1 << keyAddrBits]keyAddr
}

// keyAddr is a slot of keyAddrTable: the address and length of a KeyNames
// entry's bytes, and its index.
type keyAddr struct {
	at   uintptr
	size int
	id   uint8
}

// newKeyAddrTable returns keyAddrs. The entries' addresses are known only
// when the program runs, so the multiplier is chosen then; when none of
// those tried separates them (never seen), the table stays empty and
// keyID hashes every key's bytes, as before.
func newKeyAddrTable() *keyAddrTable {
	t := &keyAddrTable{}
next:
	for mult := uint32(0x9e3779b1); mult != 0x9e3779b1+2*10000; mult += 2 {
		t.mult, t.slots = mult, [1 << keyAddrBits]keyAddr{}
		for i := 1; i < len(KeyNames); i++ {
			at := uintptr(unsafe.Pointer(unsafe.StringData(KeyNames[i])))
			e := &t.slots[uint32(at)*mult>>(32-keyAddrBits)]
			if e.at != 0 {
				continue next
			}
			e.at, e.size, e.id = at, len(KeyNames[i]), uint8(i)
		}
		return t
	}
	return &keyAddrTable{}
}

// keyNames finds a key's index in KeyNames with one hash and one compare.
var keyNames = newNameTable(KeyNames[:])

// KindValues are the roles and block types of spec §1.2 and §1.3 (legacy
// aliases included), and its stop reasons, that a tape records as a number
// (Node.KindValue, Node.StopValue); index 0 is no value. ("toolUse" is
// both a block type and a stop reason.)
var KindValues = [...]string{"", "user", "assistant", "toolResult", "compactionSummary", "branchSummary", "custom", "tool",
	"text", "image", "thinking", "redacted_thinking", "toolCall", "toolUse", "functionCall", "tool_call", "tool_use", "function_call", "video",
	"stop", "length", "error", "aborted"}

// kindValue returns the index of s in KindValues, or 0.
func kindValue(s string) uint8 { return kindValues.index(s) }

// kindValues finds a kind's index in KindValues with one hash and one
// compare.
var kindValues = newNameTable(KindValues[:])

// A nameTable maps each of a short list of names (at most 255, index 0
// unused) to its index by a perfect hash. A name is read as two
// little-endian words: its first eight bytes and its last eight (a name
// shorter than eight: its bytes, zero above, and 0), which are also what a
// look-up compares. Its slot is a product of those words and its length,
// and the multiplier is chosen when the table is made so that no two names
// share a slot. A look-up is one or two loads of the name, one hash, one
// entry and one compare, where a switch or a loop over the names compares
// several (keys and kinds are looked up once per member and node of every
// history). A name over 16 bytes is compared as a string too.
//
// The scan looks a key up where it stands in the input (indexAt): the
// words are loaded from the input, with no call.
type nameTable struct {
	mult  uint64
	slots [256]nameSlot // by hash: the name whose hash it is, or id 0
	names []string
}

// nameSlot is one name of a nameTable: its words, its length and its index
// in the table's names.
type nameSlot struct {
	first, last uint64
	size        int
	id          uint8
}

// newNameTable returns the table of names (names[0] is no name). It tries
// multipliers in a fixed order, so the table is the same on every run, and
// panics when none of them separates the names (a list too long for 256
// slots; the tests build every table).
func newNameTable(names []string) *nameTable {
	t := &nameTable{names: names}
next:
	for mult := uint64(0x9e3779b97f4a7c15); mult != 0x9e3779b97f4a7c15+2*100000; mult += 2 {
		t.mult, t.slots = mult, [256]nameSlot{}
		for i := 1; i < len(names); i++ {
			first, last := nameWords(names[i])
			e := &t.slots[t.hash(len(names[i]), first, last)]
			if e.id != 0 {
				continue next
			}
			*e = nameSlot{first: first, last: last, size: len(names[i]), id: uint8(i)}
		}
		return t
	}
	panic("jsontape: no multiplier separates the names")
}

// nameWords returns the words of name s (see nameTable).
func nameWords(s string) (first, last uint64) {
	var w [16]byte
	if len(s) < 8 {
		copy(w[:], s)
	} else {
		copy(w[:8], s)
		copy(w[8:], s[len(s)-8:])
	}
	return binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])
}

// hash returns the slot of a name of n bytes with these words.
func (t *nameTable) hash(n int, first, last uint64) uint8 {
	return uint8((first ^ last>>3 ^ uint64(n)<<59) * t.mult >> 56)
}

// index returns the index of s in the table's names, or 0.
func (t *nameTable) index(s string) uint8 {
	if len(s) == 0 {
		return 0
	}
	first, last := nameWords(s)
	if e := &t.slots[t.hash(len(s), first, last)]; e.size == len(s) && e.first == first && e.last == last && (len(s) <= 16 || t.names[e.id] == s) {
		return e.id
	}
	return 0
}

// indexAt returns the index of the name data[start:end] in the table's
// names, or 0, as index does, reading the name's words where it stands: a
// name of eight bytes or more as the words at start and end-8, one shorter
// as the word at start with the bytes past end masked off (when data holds
// eight bytes from start; the scan's keys are followed by at least their
// closing quote).
func (t *nameTable) indexAt(data []byte, start, end int) uint8 {
	n := end - start
	var first, last uint64
	switch {
	case n >= 8:
		first, last = binary.LittleEndian.Uint64(data[start:]), binary.LittleEndian.Uint64(data[end-8:])
	case n > 0 && start+8 <= len(data):
		first = binary.LittleEndian.Uint64(data[start:]) & (1<<(8*n) - 1)
	default:
		if n == 0 {
			return 0
		}
		var w [8]byte
		copy(w[:], data[start:end])
		first = binary.LittleEndian.Uint64(w[:])
	}
	e := &t.slots[t.hash(n, first, last)]
	if e.size != n || e.first != first || e.last != last {
		return 0
	}
	if n > 16 && string(data[start:end]) != t.names[e.id] {
		return 0
	}
	return e.id
}
