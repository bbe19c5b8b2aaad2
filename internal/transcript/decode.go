package transcript

import "github.com/hygiene-dev/hygiene/internal/transcript/jsontape"

// messagesOf wraps the n messages recorded on tapes: each message and
// each content block is a view of its tape entry (see node), allocated a
// tape at a time, so decoding costs a few allocations per part, not per
// message, and the collector scans only these views, never the members.
func messagesOf(tapes []*jsontape.Tape, n int) []*Message {
	msgs := make([]*Message, 0, n)
	for _, t := range tapes {
		slab := make([]Message, len(t.Messages))
		nblocks := len(t.Nodes) - len(t.Messages)
		blockSlab := make([]Block, nblocks)
		ptrs := make([]*Block, nblocks)
		k := 0
		for i, ni := range t.Messages {
			m := &slab[i]
			k = m.wrap(t, ni, blockSlab, ptrs, k)
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// wrap makes m the view of node ni of t, its blocks the views from
// blockSlab[k:] (pointed to by ptrs[k:]), and returns the next free k.
func (m *Message) wrap(t *jsontape.Tape, ni uint32, blockSlab []Block, ptrs []*Block, k int) int {
	tn := &t.Nodes[ni]
	m.members = viewOf(t, ni)
	m.invalidText = tn.Flags&jsontape.InvalidText != 0
	m.facts = tapeFacts(t, tn)
	if tn.Flags&jsontape.ContentArray == 0 {
		return k
	}
	start := k
	for j := range tn.NBlocks {
		blockSlab[k].node = viewOf(t, tn.Blocks+j)
		ptrs[k] = &blockSlab[k]
		k++
	}
	m.blocks, m.isArray = ptrs[start:k:k], true
	return k
}

// messageOf wraps message i of t alone (a session file's).
func messageOf(t *jsontape.Tape, i int) *Message {
	ni := t.Messages[i]
	nblocks := int(t.Nodes[ni].NBlocks)
	m := &Message{}
	m.wrap(t, ni, make([]Block, nblocks), make([]*Block, nblocks), 0)
	return m
}
