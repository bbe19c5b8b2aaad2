package wire

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Final is how a request body treats its last turn when that turn is the
// assistant's (FinalTurn decides it).
type Final uint8

const (
	// FinalAsIs: the body's last turn is sent as it is.
	FinalAsIs Final = iota
	// FinalTrim: the final assistant turn is a prefill whose last text
	// loses its trailing white space (Anthropic refuses it otherwise).
	FinalTrim
	// FinalPrefix: the final assistant turn is marked "prefix": true
	// (Mistral, job option continue: true).
	FinalPrefix
)

// PlaceNext decodes the job option `next` (the turn or turns the runner is
// about to send: the new user prompt, or tool results) and appends them
// after the history, so that the rules sanitize them with it and they are
// last in the messages and in the body. It refuses, naming the option, a
// `next` that is not a non-empty array of user and tool-result messages, and
// one given with continue: true (which asks to continue the history's own
// last turn).
func PlaceNext(t *transcript.Transcript) error {
	o := t.Options
	if len(o.Next) == 0 {
		return nil
	}
	if o.Continue {
		return errors.New("options.continue and options.next exclude each other: continue asks to continue the history's last assistant turn, next puts turns after it")
	}
	next, err := transcript.FromMessages(o.Next, t.Target)
	if err != nil {
		return fmt.Errorf("options.next: %v", err)
	}
	if len(next.Messages) == 0 {
		return errors.New("options.next must hold at least one message")
	}
	for i, m := range next.Messages {
		switch m.Role() {
		case transcript.RoleUser, transcript.RoleToolResult, transcript.RoleTool:
		default:
			return fmt.Errorf("options.next[%d].role must be %q or %q (the turns the runner sends), got %q",
				i, transcript.RoleUser, transcript.RoleToolResult, m.Role())
		}
	}
	t.Messages = append(t.Messages, next.Messages...)
	return nil
}

// FinalTurn judges the end of a request body (render: request) by the
// target model's prefill rule for the body's format (contract.PrefillOf,
// through BodyFormat.Prefill, the rule `worker check --format` applies). A history whose last
// turn is a user turn or tool results is complete (FinalAsIs). One that
// ends with the assistant's turn, which is how most sessions end and what a
// job without `next` sends, is a prefill: accepted (FinalTrim where the API
// wants no trailing white space, else FinalAsIs), marked as a prefix for
// Mistral when the job says continue: true (FinalPrefix), or refused with
// an error whose sentence names the model, the rule and the `next` option
// (the pipeline's `unsendable` dead letter).
//
// In messages mode nothing is judged: the runner appends the next turn.
func FinalTurn(p policy.Policy, msgs []*transcript.Message, o transcript.Options) (Final, error) {
	if !endsWithAssistant(p, msgs) {
		return FinalAsIs, nil
	}
	rule := FormatFor(p).Prefill(p.Model)
	switch {
	case rule.Prefill == contract.PrefillFlagged && o.Continue:
		return FinalPrefix, nil
	case rule.Prefill == contract.PrefillAccepted && rule.TrimTrailingSpace:
		return FinalTrim, nil
	case rule.Prefill == contract.PrefillAccepted:
		return FinalAsIs, nil
	}
	return FinalAsIs, fmt.Errorf("the history ends with an assistant turn, which model %q (%s) refuses: %s; "+
		"give the turn the runner sends next (the user prompt or the tool results) as options.next", p.Model, FormatFor(p), rule.Rule)
}

// endsWithAssistant reports whether the last turn the body for p carries
// is an assistant turn: the body is judged, not the messages. Unknown
// roles, which no body carries, are passed over (a custom message is a user
// turn), and so is an assistant message of which the target's renderer
// writes nothing (a turn of thinking that is not the target's own, say:
// sendsAssistant), as the renderer passes it over.
func endsWithAssistant(p policy.Policy, msgs []*transcript.Message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		switch msgs[i].Role() {
		case transcript.RoleAssistant:
			if t, _ := readHistory(msgs[i : i+1]); len(t) == 1 && sendsAssistant(p, &t[0]) {
				return true
			}
		case transcript.RoleUser, transcript.RoleToolResult, transcript.RoleTool,
			transcript.RoleCompactionSummary, transcript.RoleBranchSummary, transcript.RoleCustom:
			return false
		}
	}
	return false
}

// sendsAssistant reports whether the body for p writes anything of the
// assistant turn t: what the format's own writer of an assistant turn
// writes for it, so the two cannot disagree.
func sendsAssistant(p policy.Policy, t *turn) bool {
	var block func(dst []byte, p part, first *bool) []byte
	switch FormatFor(p) {
	case AnthropicMessages:
		block = anthropicBlock
	case BedrockConverse:
		block = bedrockBlock
	case GeminiContents:
		block = func(dst []byte, pt part, first *bool) []byte { return geminiPart(dst, pt, t.fromGoogle, first) }
	case OpenAIResponses:
		copilot := p.Provider == contract.CopilotProvider
		block = func(dst []byte, pt part, first *bool) []byte { return responsesAssistantItem(dst, pt, copilot, first) }
	default: // Chat Completions and Mistral write a turn whole
		first := true
		return len(chatAssistant(nil, t, chatDialect{}, false, &first)) > 0
	}
	var out []byte
	first := true
	for _, pt := range t.parts {
		out = block(out, pt, &first)
	}
	return len(out) > 0
}

// trimFinal trims the trailing white space of the last text of a final
// assistant turn (FinalTrim); a text left empty is dropped.
func trimFinal(turns []turn) {
	if len(turns) == 0 || turns[len(turns)-1].role != roleAssistant {
		return
	}
	t := &turns[len(turns)-1]
	for k := len(t.parts) - 1; k >= 0; k-- {
		if t.parts[k].kind != partText {
			continue
		}
		s, ok := transcript.UnquoteBytes(t.parts[k].text)
		if !ok {
			return
		}
		trimmed := strings.TrimRightFunc(string(s), unicode.IsSpace)
		switch {
		case trimmed == "":
			t.parts = append(t.parts[:k:k], t.parts[k+1:]...)
		case len(trimmed) != len(s):
			t.parts[k].text = transcript.JSONString(trimmed)
		}
		return
	}
}
