package transcript

import "github.com/hygiene-dev/hygiene/internal/transcript/jsontape"

// Facts is a set of things a message, or a whole job, holds: its roles,
// its block kinds, and the few members whose presence decides whether a
// rule has anything to do. A rule declares the facts it reads
// (stage.Stage.Needs), and the rule runner skips it in a job that holds
// none of them.
//
// The decode records each message's facts once, from its tape entry (the
// role, block types and common keys the scan already noted), so the facts
// of a history nobody edited cost one load per message. A message's facts
// stay exact when rules edit it: one that a rule wrote to, built, or whose
// blocks it replaced or edited is read again each time its facts are
// asked for (Message.Facts). A job's facts (Transcript.Facts, the union
// over its messages) are read once by the runner (stage.Skipper), which
// then keeps a "may hold" superset: a rule only removes what a job held,
// or adds what it declares it may add (stage.Stage.Adds: a synthetic tool
// result, say), so no rule makes the runner skip a rule it should run.
type Facts uint32

// The facts of a message. A fact is set when at least one entry holds it.
const (
	FactUser          Facts = 1 << iota // a message of role user
	FactAssistant                       // a message of role assistant
	FactToolResult                      // a message of role toolResult or tool (legacy)
	FactCompaction                      // a message of role compactionSummary
	FactText                            // a text block
	FactImage                           // an image block
	FactDocument                        // a document block
	FactThinking                        // a thinking or redacted_thinking block
	FactToolCall                        // a toolCall, toolUse or functionCall block (Block.IsToolCall)
	FactToolCallSnake                   // a tool_call, tool_use or function_call block (snake-case aliases)
	// FactOtherBlock is a block of another type (server tools, a
	// tool_result block, video, ...), a block without a string type, or a
	// content element that is not an object.
	FactOtherBlock
	FactProvenance  // a message with a "provenance" member
	FactDetails     // a message with a "details" member
	FactInvalidText // a message the decoder saw invalid UTF-8 or a lone surrogate in (HasInvalidText)
	// FactUsageOff is an assistant whose first usage is not a whole plain
	// usage (jsontape.NormalUsage), or that has none: one the usage rule
	// of spec §3.14 may write.
	FactUsageOff
	// FactToolNameOff is a tool call (Block.IsToolCall) whose first name,
	// or a tool result whose first toolName, is a string but not a plain
	// tool name (jsontape.PlainToolName): one the tool-name rule may
	// rename.
	FactToolNameOff
)

// Facts returns what the message holds now: what the decode recorded when
// no rule has edited it, else what it holds as edited.
func (m *Message) Facts() Facts {
	if m.members.ov == nil && !m.changed && m.members.t != nil {
		edited := false
		for _, b := range m.blocks {
			if b.ov != nil {
				edited = true
				break
			}
		}
		if !edited {
			return m.facts
		}
	}
	return m.currentFacts()
}

// Facts returns what the job's messages hold now: the union of their
// Message.Facts.
func (t *Transcript) Facts() Facts {
	var f Facts
	for _, m := range t.Messages {
		f |= m.Facts()
	}
	return f
}

// currentFacts reads the message's facts from its members and blocks as
// they are (the decode's record aside).
func (m *Message) currentFacts() Facts {
	if !m.IsObject() {
		return 0
	}
	f := roleFact(m.Role())
	if f&FactAssistant != 0 {
		if raw, ok := m.Get("usage"); !ok || !jsontape.NormalUsage(raw) {
			f |= FactUsageOff
		}
	}
	if f&FactToolResult != 0 && nameOff(m.Get("toolName")) {
		f |= FactToolNameOff
	}
	if m.Has("provenance") {
		f |= FactProvenance
	}
	if m.Has("details") {
		f |= FactDetails
	}
	if m.invalidText {
		f |= FactInvalidText
	}
	for _, b := range m.blocks {
		if !b.IsObject() {
			f |= FactOtherBlock
			continue
		}
		bf := blockFact(b.Type())
		if bf&FactToolCall != 0 && nameOff(b.Get("name")) {
			bf |= FactToolNameOff
		}
		f |= bf
	}
	return f
}

// nameOff reports whether a name member (raw, has as Get returns them) is
// a string but not a plain tool name.
func nameOff(raw []byte, has bool) bool {
	return has && len(raw) > 0 && raw[0] == '"' && !jsontape.PlainToolName(raw)
}

// tapeFacts is currentFacts for message node tn of tp as read, from what
// the scan recorded on the tape.
func tapeFacts(tp *jsontape.Tape, tn *jsontape.Node) Facts {
	if tn.Flags&jsontape.IsObject == 0 {
		return 0
	}
	f := roleFacts[tn.KindValue]
	if tn.KindValue == 0 {
		f = roleFact(tp.KindString(tn))
	}
	if f&FactAssistant != 0 && tn.Marks&jsontape.UsageWhole == 0 {
		f |= FactUsageOff
	}
	if f&FactToolResult != 0 && tn.Marks&jsontape.ToolNameOff != 0 {
		f |= FactToolNameOff
	}
	f |= Facts(tn.Keys>>provenanceKey&1)*FactProvenance | Facts(tn.Keys>>detailsKey&1)*FactDetails
	if tn.Flags&jsontape.InvalidText != 0 {
		f |= FactInvalidText
	}
	if tn.Flags&jsontape.ContentArray == 0 {
		return f
	}
	blocks := tp.Nodes[tn.Blocks : tn.Blocks+tn.NBlocks]
	for i := range blocks {
		bn := &blocks[i]
		var bf Facts
		switch {
		case bn.Flags&jsontape.IsObject == 0:
			bf = FactOtherBlock
		case bn.KindValue != 0:
			bf = blockFacts[bn.KindValue]
		default:
			bf = blockFact(tp.KindString(bn))
		}
		if bf&FactToolCall != 0 && bn.Marks&jsontape.NameOff != 0 {
			bf |= FactToolNameOff
		}
		f |= bf
	}
	return f
}

// roleFact is the fact of a message's role (none for a role no rule
// declares).
func roleFact(role string) Facts {
	switch role {
	case RoleUser:
		return FactUser
	case RoleAssistant:
		return FactAssistant
	case RoleToolResult, RoleTool:
		return FactToolResult
	case RoleCompactionSummary:
		return FactCompaction
	}
	return 0
}

// blockFact is the fact of a block's type.
func blockFact(typ string) Facts {
	switch typ {
	case BlockText:
		return FactText
	case BlockImage:
		return FactImage
	case BlockDocument:
		return FactDocument
	case BlockThinking, BlockRedactedThinking:
		return FactThinking
	case BlockToolCall, BlockToolUse, BlockFunctionCall:
		return FactToolCall
	case BlockToolCallSnake, BlockToolUseSnake, BlockFunctionSnake:
		return FactToolCallSnake
	}
	return FactOtherBlock
}

// roleFacts and blockFacts are roleFact and blockFact of each of
// jsontape.KindValues (a message node's kind value is its role, a block
// node's its type).
var roleFacts, blockFacts = func() (roles, blocks [len(jsontape.KindValues)]Facts) {
	for i, v := range jsontape.KindValues {
		if i > 0 {
			roles[i], blocks[i] = roleFact(v), blockFact(v)
		}
	}
	return roles, blocks
}()

// provenanceKey and detailsKey are the bits of jsontape.Node.Keys that say
// a message has those members.
var provenanceKey, detailsKey = keyBit("provenance"), keyBit("details")

// keyBit is the index of key in jsontape.KeyNames.
func keyBit(key string) uint {
	for i, k := range jsontape.KeyNames {
		if k == key && i > 0 {
			return uint(i)
		}
	}
	panic("transcript: " + key + " is not one of jsontape.KeyNames")
}
