package jsontape

import (
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// linearIndex is the definition the name tables must agree with: the
// index of s in names, or 0.
func linearIndex(names []string, s string) uint8 {
	if i := slices.Index(names[1:], s); i >= 0 {
		return uint8(i + 1)
	}
	return 0
}

// TestNameTables: every key and kind is found at its index, and names
// that share a slot's bytes with one (a prefix, a different middle, an
// empty string, another case) are not.
func TestNameTables(t *testing.T) {
	for _, tc := range []struct {
		names []string
		index func(string) uint8
	}{{KeyNames[:], keyID}, {KindValues[:], kindValue}} {
		for i, n := range tc.names[1:] {
			if got := tc.index(n); got != uint8(i+1) {
				t.Errorf("%q: index %d, want %d", n, got, i+1)
			}
			for _, other := range []string{n[:len(n)-1], n + "x", "x" + n, n[:len(n)/2] + "\x00" + n[len(n)/2+1:], string(rune(n[0]-32)) + n[1:]} {
				if got, want := tc.index(other), linearIndex(tc.names, other); got != want {
					t.Errorf("%q: index %d, want %d", other, got, want)
				}
			}
		}
		if got := tc.index(""); got != 0 {
			t.Errorf(`"": index %d, want 0`, got)
		}
	}
}

// checkIndexAt holds nameTable.indexAt, the look-up of a name where it
// stands in the input, to a linear search: s at the end of the data
// (nothing to load past it), before a closing quote, and before other
// bytes.
func checkIndexAt(t *testing.T, s string) {
	t.Helper()
	for _, tc := range []struct {
		table *nameTable
		names []string
	}{{keyNames, KeyNames[:]}, {kindValues, KindValues[:]}} {
		want := linearIndex(tc.names, s)
		for _, data := range []string{s, `"` + s + `"`, `"` + s + `":"value","type":"text"}`, "xx" + s + "\x00\x00\x00\x00\x00\x00\x00\x00"} {
			start := strings.Index(data, s)
			if got := tc.table.indexAt([]byte(data), start, start+len(s)); got != want {
				t.Fatalf("indexAt(%q, %d, %d) = %d, want %d", data, start, start+len(s), got, want)
			}
		}
	}
}

// TestIndexAt checks the look-up in place on every name and on the names
// TestNameTables builds from them (each length around the word sizes).
func TestIndexAt(t *testing.T) {
	for _, n := range append(KeyNames[1:], KindValues[1:]...) {
		checkIndexAt(t, n)
		for _, other := range []string{n[:len(n)-1], n + "x", "x" + n, n[:len(n)/2] + "\x00" + n[len(n)/2+1:], n[:len(n)-1] + "\x00", string(rune(n[0]-32)) + n[1:]} {
			checkIndexAt(t, other)
		}
		for k := range len(n) { // one byte changed anywhere: the first word, the last, the overlap
			b := []byte(n)
			b[k] ^= 0x20
			checkIndexAt(t, string(b))
		}
	}
	checkIndexAt(t, "")
}

// TestKeyNumbers checks the key numbers the scan compares with.
func TestKeyNumbers(t *testing.T) {
	for id, name := range map[int]string{keyRole: "role", keyContent: "content", keyType: "type", keyStopReason: "stopReason", keyUsage: "usage", keyName: "name", keyToolName: "toolName"} {
		if KeyNames[id] != name {
			t.Errorf("KeyNames[%d] = %q, want %q", id, KeyNames[id], name)
		}
	}
}

// FuzzNameTables holds the perfect-hash look-ups to a linear search of
// the names.
func FuzzNameTables(f *testing.F) {
	for _, n := range append(KeyNames[:], KindValues[:]...) {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := keyID(s), linearIndex(KeyNames[:], s); got != want {
			t.Fatalf("keyID(%q) = %d, want %d", s, got, want)
		}
		if got, want := kindValue(s), linearIndex(KindValues[:], s); got != want {
			t.Fatalf("kindValue(%q) = %d, want %d", s, got, want)
		}
		checkIndexAt(t, s)
	})
}

// BenchmarkNameTables looks up every key once, and as many other member
// names of real histories the tables do not hold.
func BenchmarkNameTables(b *testing.B) {
	others := []string{"cache_control", "source", "media_type", "tool_calls", "function", "finish_reason", "index", "logprobs", "refusal", "annotations", "cacheRead", "cacheWrite", "totalTokens", "output", "parentId", "cwd"}
	for b.Loop() {
		for _, n := range KeyNames[1:] {
			keyID(n)
		}
		for _, n := range others {
			keyID(n)
		}
	}
}

// TestKeyAddrs checks keyID's look-up by address: every KeyNames entry is
// in the table (so a rule's string constant is found without a hash), and
// a copy of an entry, a prefix of one (the same address, fewer bytes) and
// a string constant of another package give the index by name.
func TestKeyAddrs(t *testing.T) {
	for i, name := range KeyNames[1:] {
		at := uintptr(unsafe.Pointer(unsafe.StringData(name)))
		if e := keyAddrs.slots[uint32(at)*keyAddrs.mult>>(32-keyAddrBits)]; e.at != at || e.id != uint8(i+1) {
			t.Fatalf("KeyNames[%d] (%q) is not in keyAddrs", i+1, name)
		}
		if got := keyID(strings.Clone(name)); got != uint8(i+1) {
			t.Errorf("keyID(copy of %q) = %d, want %d", name, got, i+1)
		}
		for n := 1; n < len(name); n++ {
			if got, want := keyID(name[:n]), linearIndex(KeyNames[:], name[:n]); got != want {
				t.Errorf("keyID(%q) = %d, want %d", name[:n], got, want)
			}
		}
	}
	if got := keyID("toolCallId"); got != linearIndex(KeyNames[:], "toolCallId") {
		t.Errorf("keyID(\"toolCallId\") = %d", got)
	}
	if got := keyID(""); got != 0 {
		t.Errorf("keyID(\"\") = %d, want 0", got)
	}
}
