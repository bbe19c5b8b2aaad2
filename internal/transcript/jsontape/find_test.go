package jsontape

import (
	"fmt"
	"strings"
	"testing"
)

// findByWalk is Find's definition: the first member of n whose key is key,
// by a walk of its members reading each key.
func findByWalk(t *Tape, n *Node, key string) uint32 {
	for i := n.First; i < n.First+n.Count; i++ {
		if t.Key(&t.Members[i]) == key {
			return i
		}
	}
	return NoMember
}

// findHistory is a history of the shapes Find reads: messages of each
// role with their usual members, blocks, an escaped key, a repeated key.
func findHistory(n int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"role":"user","content":"please read file %d","timestamp":%d},`, i, 1000+i)
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQB"},{"type":"toolCall","id":"toolu_%06d","name":"read","arguments":{"path":"a.go"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","stopReason":"toolUse","usage":{"input":1,"output":2},"timestamp":%d},`, i, 1000+i)
		fmt.Fprintf(&b, `{"role":"toolResult","toolCallId":"toolu_%06d","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false,"x-extra":1,"\u0074ype":"dup","timestamp":%d}`, i, 1000+i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

// findKeys are the keys the tests and the benchmark look up: common keys
// present and absent, an uncommon one, one only escaped in the input.
var findKeys = []string{"role", "content", "timestamp", "usage", "details", "errorMessage", "toolCallId", "id", "type", "x-extra", "nope", "arguments"}

// TestFindMatchesWalk checks Find, with its key numbers and Node.Keys,
// against the walk of every member, on every message and block.
func TestFindMatchesWalk(t *testing.T) {
	tapes, ok, err := SplitArray(findHistory(20), 64, Parallel{})
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	tp := tapes[0]
	for i := range tp.Nodes {
		n := &tp.Nodes[i]
		for _, k := range append(findKeys, KeyNames[1:]...) {
			if got, want := tp.Find(n, k), findByWalk(tp, n, k); got != want {
				t.Fatalf("node %d: Find(%q) = %d, want %d", i, k, got, want)
			}
		}
	}
}

// BenchmarkFind looks up findKeys in every message and block of a
// 3,000-message history: Find against the walk it replaces (the same run).
func BenchmarkFind(b *testing.B) {
	tapes, _, _ := SplitArray(findHistory(1000), 64, Parallel{})
	tp := tapes[0]
	for _, c := range []struct {
		name string
		find func(*Tape, *Node, string) uint32
	}{{"find", (*Tape).Find}, {"walk", findByWalk}} {
		b.Run(c.name, func(b *testing.B) {
			var sink uint32
			for b.Loop() {
				for i := range tp.Nodes {
					for _, k := range findKeys {
						sink += c.find(tp, &tp.Nodes[i], k)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tp.Nodes)*len(findKeys)), "ns/find")
			_ = sink
		})
	}
}
