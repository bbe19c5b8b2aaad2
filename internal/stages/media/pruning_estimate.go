package media

import (
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Constants of spec §3.18's character estimate.
const (
	charsPerToken      = 4
	imageCharEstimate  = 8_000
	otherRoleEstimate  = 256
	unserialisableArgs = 128
)

// reasoningOmittedText is the text §3.8.1 leaves in an assistant turn whose
// only blocks were thinking; the dropped-view estimate counts it.
const reasoningOmittedText = "[assistant reasoning omitted]"

// estimator computes spec §3.18's character estimate of one message:
// text in UTF-16 units with CJK weighted 4, 8,000 per image, a toolCall's
// arguments as the length of their JSON, 256 for any other role. When the
// policy drops thinking blocks before sending (§3.8.1), it estimates the
// assistant turns as they will be sent: thinking blocks count nothing,
// except in the latest assistant with array content, which is kept whole.
type estimator struct {
	dropThinking    bool
	latestAssistant int
}

func newEstimator(p policy.Policy, msgs []*transcript.Message) estimator {
	e := estimator{dropThinking: p.DropThinkingBlocks, latestAssistant: -1}
	if e.dropThinking {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role() == transcript.RoleAssistant {
				if _, ok := msgs[i].Blocks(); ok {
					e.latestAssistant = i
					break
				}
			}
		}
	}
	return e
}

// message returns the estimate of msgs[i] = m.
func (e estimator) message(i int, m *transcript.Message) int64 {
	switch m.Role() {
	case transcript.RoleUser, transcript.RoleToolResult:
		return textAndImagesEstimate(m)
	case transcript.RoleAssistant:
		return e.assistant(i, m)
	}
	return otherRoleEstimate
}

// textAndImagesEstimate counts a user or toolResult message: its string
// content, or the text blocks of its array plus 8,000 per image block.
func textAndImagesEstimate(m *transcript.Message) int64 {
	blocks, ok := m.Blocks()
	if !ok {
		raw, _ := m.Get("content")
		return rawWeightedLen(raw)
	}
	var n int64
	for _, b := range blocks {
		switch b.Type() {
		case transcript.BlockText:
			raw, _ := b.Get("text")
			n += rawWeightedLen(raw)
		case transcript.BlockImage:
			n += imageCharEstimate
		}
	}
	return n
}

// assistant counts an assistant message: text, thinking text and
// signatures, redacted-thinking data, and the arguments of blocks of type
// exactly toolCall (toolUse and functionCall count nothing).
func (e estimator) assistant(i int, m *transcript.Message) int64 {
	blocks, ok := m.Blocks()
	if !ok {
		raw, _ := m.Get("content")
		return rawWeightedLen(raw)
	}
	dropped := e.dropThinking && i != e.latestAssistant
	var n int64
	kept := 0
	for _, b := range blocks {
		typ := b.Type()
		if dropped && (typ == transcript.BlockThinking || typ == transcript.BlockRedactedThinking) {
			continue
		}
		kept++
		switch typ {
		case transcript.BlockText:
			raw, _ := b.Get("text")
			n += rawWeightedLen(raw)
		case transcript.BlockThinking:
			raw, _ := b.Get("thinking")
			sig, _ := b.Get("thinkingSignature")
			n += rawWeightedLen(raw) + rawWeightedLen(sig)
		case transcript.BlockRedactedThinking:
			raw, _ := b.Get("data")
			sig, _ := b.Get("thinkingSignature")
			n += rawWeightedLen(raw) + rawWeightedLen(sig)
		case transcript.BlockToolCall:
			n += argumentsEstimate(b)
		}
	}
	if dropped && kept == 0 && len(blocks) > 0 {
		n += weightedLen(reasoningOmittedText)
	}
	return n
}

// argumentsEstimate is len(JSON.stringify(arguments ?? {})), or 128 for
// arguments that cannot be serialised.
func argumentsEstimate(b *transcript.Block) int64 {
	raw, ok := b.Get("arguments")
	if !ok || string(raw) == "null" {
		return 2 // "{}"
	}
	if n, ok := jsonStringifyLen(raw); ok {
		return n
	}
	return unserialisableArgs
}
