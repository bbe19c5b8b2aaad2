package transcript

import (
	"reflect"
	"testing"
)

// lazyTwin is what the message's structure was before issue 12: the same
// raw bytes, parsed only on access.
func lazyTwin(m *Message) *Message {
	return &Message{members: node{raw: m.members.raw}, invalidText: m.invalidText}
}

// checkSameStructure fails when a message split by the decoding pass (tape)
// differs from the same bytes parsed lazily: members, content blocks, and
// each block's members.
func checkSameStructure(t *testing.T, msgs []*Message) {
	t.Helper()
	for k, m := range msgs {
		lazy := lazyTwin(m)
		if m.IsObject() != lazy.IsObject() || !reflect.DeepEqual(fieldsOrEmpty(m.members.obj.Fields), fieldsOrEmpty(lazy.members.obj.Fields)) {
			t.Fatalf("message %d: members %v, lazily %v", k, m.members.obj.Fields, lazy.members.obj.Fields)
		}
		blocks, isArray := m.Blocks()
		lazyBlocks, lazyIsArray := lazy.Blocks()
		if isArray != lazyIsArray || len(blocks) != len(lazyBlocks) {
			t.Fatalf("message %d: %d blocks (array %v), lazily %d (array %v)", k, len(blocks), isArray, len(lazyBlocks), lazyIsArray)
		}
		for j := range blocks {
			b, lb := blocks[j], lazyBlocks[j]
			if string(b.Raw()) != string(lb.Raw()) || b.IsObject() != lb.IsObject() ||
				!reflect.DeepEqual(fieldsOrEmpty(b.obj.Fields), fieldsOrEmpty(lb.obj.Fields)) {
				t.Fatalf("message %d block %d: %s differs from its lazy parse", k, j, b.Raw())
			}
		}
	}
}

func fieldsOrEmpty(f []Field) []Field {
	if f == nil {
		return []Field{}
	}
	return f
}

func TestDecodingPassSplitsLikeTheLazyParse(t *testing.T) {
	for _, messages := range []string{
		`[]`,
		`[{"role":"user","content":"hi"},{"role":"assistant","content":[]}]`,
		`[{"role":"assistant","content":[{"type":"text","text":"a\"b"},"x",null,{"type":"tool_use","input":{"a":[1,{"b":2}]}}]}]`,
		`[{"content":"first","content":[{"type":"text","text":"second"}]}]`,
		`[{"content":[{"type":"text"}],"content":"second"}]`,
		`[{"ro\u006ce":"user","content":[{}]}, "not an object", 3, [1,2]]`,
		`[{"role":"user","content":[{"type":"text","text":"caf\u00e9 \ud800 bad ` + "\xff" + `"}]}]`,
	} {
		tr, err := FromMessages([]byte(messages), Target{})
		if err != nil {
			t.Fatalf("%s: %v", messages, err)
		}
		checkSameStructure(t, tr.Messages)
	}
}

// TestNextSlab: slabs start small, double up to slabSize, and always hold
// what must fit.
func TestNextSlab(t *testing.T) {
	for _, c := range []struct{ prev, n, want int }{
		{0, 1, firstSlab},
		{firstSlab, 1, 2 * firstSlab},
		{512, 1, slabSize},
		{slabSize, 1, slabSize},
		{0, 3000, 3000},
		{slabSize, 2000, 2000},
	} {
		if got := nextSlab(c.prev, c.n); got != c.want {
			t.Errorf("nextSlab(%d, %d) = %d, want %d", c.prev, c.n, got, c.want)
		}
	}
}
