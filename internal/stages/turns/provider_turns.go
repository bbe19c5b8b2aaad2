package turns

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ProviderTurns goes beyond OpenClaw: it is the last rule of the chain and
// makes the turn shape acceptable to targets that are strict about it — the
// Anthropic family (Anthropic Messages, Vertex, Bedrock Converse), the
// Google family (Gemini), and every policy that validates Anthropic or
// Gemini turns (the strict OpenAI-compatible rows: vLLM, Gemma and the
// like). It does only what those providers need:
//
//   - No empty or blank text: Anthropic rejects empty text blocks and empty
//     string content, Bedrock rejects blank text, Gemini rejects empty
//     parts. Text blocks whose text is blank or not a string are removed. A
//     user or tool-result content left empty (or blank) becomes
//     "[empty content omitted]" (§3.3's placeholder).
//   - No assistant content [] (Bedrock Converse: "ContentBlock must not be
//     empty"; Anthropic: non-empty content; Gemini: non-empty parts): an
//     assistant left empty, such as an aborted turn whose calls were
//     stripped, gets the stream-error sentinel text of §3.2.
//   - Alternation: Bedrock Converse, Gemini and strict OpenAI-compatible
//     servers reject consecutive same-role turns (the Anthropic API folds
//     them, so merging costs it nothing). Consecutive assistants are merged
//     as §3.12.1 merges them, consecutive users as §3.12.2 does. Tool
//     results and the other non-assistant roles (summaries, custom) are on
//     the user side: the transports send them in user turns, so a user
//     message after tool results continues the same user turn.
//   - No trailing failed turn: a filled empty turn at the end is popped by
//     §3.2's trailing trim (the prefill rejection of spec §6).
//     Where the policy validates Anthropic turns, a merge that gives a
//     tool-calling turn thinking blocks is checked again by §3.12.2's
//     dangling-call rule (the thinking path is stricter), and the turns its
//     removals make adjacent are merged once more (a turn whose calls were
//     omitted has none left, so no further check is needed).
//   - The first turn is the user's (Anthropic, Bedrock, Gemini, strict
//     OpenAI-compatible): a history that starts with an assistant gets the
//     exact "(session bootstrap)" user turn of §3.11 in front, stamped like
//     GoogleBootstrap's.
//
// One part runs for every target: a history with turns to send but no
// user-side turn (user, summary or custom) gets the same bootstrap turn in
// front. Such a history is real: a Gemini body whose instructions are all
// in systemInstruction and whose contents are the model's calls and their
// functionResponses parses to assistant turns and tool results only (the
// system prompt is the request's, not a message). Every family's contract
// wants a user turn in the request (contract.Check, required_content), and
// the strict targets want it first; Chat Completions, Responses and Mistral
// document no leading-user rule, but one behaviour for every target is the
// choice: the job is ready everywhere, with the bootstrap turn, which says
// nothing the model would act on, instead of a dead letter empty_history
// on three targets and a ready payload on the other three (issue 29).
//
// Gemini's function-call placement (right after a user turn or a function
// response) and its equal response counts come from pairing, which runs
// earlier; merging never separates a call from its results, because pairing
// puts results right after their assistant.
func ProviderTurns() stage.Stage {
	const name = "provider_turns"
	return stage.Stage{Name: name, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		p := env.Policy
		if !p.ValidateAnthropicTurns && !p.ValidateGeminiTurns && !p.IsAnthropicFamily() && !p.IsGoogleFamily() {
			if first := firstTurn(t.Messages); first != nil && !hasUserSide(t.Messages) {
				prependBootstrap(t, env, first)
				env.Report.Add(name, "bootstrap", 1)
			}
			return nil
		}
		var n int
		t.Messages, n = withoutRoleless(t.Messages)
		env.Report.Add(name, "roleless_dropped", n)
		var foreign int
		t.Messages, n, foreign = mergeAssistants(t.Messages, env.Policy)
		env.Report.Add(name, "assistants_merged", n)
		env.Report.Add(name, "foreign_thinking_dropped", foreign)
		if p.ValidateAnthropicTurns && n > 0 {
			var changed, removed int
			t.Messages, changed, removed = stripDangling(t.Messages)
			env.Report.Add(name, "dangling_stripped", changed)
			env.Report.Add(name, "results_removed", removed)
			if removed > 0 {
				t.Messages, n, foreign = mergeAssistants(t.Messages, env.Policy)
				env.Report.Add(name, "assistants_merged", n)
				env.Report.Add(name, "foreign_thinking_dropped", foreign)
			}
		}
		t.Messages, n = mergeUsers(t.Messages)
		env.Report.Add(name, "users_merged", n)
		filled := 0
		for _, m := range t.Messages {
			if fillEmptyContent(m) {
				filled++
			}
		}
		env.Report.Add(name, "content_fixed", filled)
		env.Report.Add(name, "trailing_trimmed", trimTrailingFailures(t, env))
		if first := firstTurn(t.Messages); first != nil && (first.Role() == transcript.RoleAssistant || !hasUserSide(t.Messages)) {
			prependBootstrap(t, env, first)
			env.Report.Add(name, "bootstrap", 1)
		}
		return nil
	}}
}

// firstTurn is the first message a provider is sent (an assistant turn, a
// tool result or a user-side message), or nil when there is none.
func firstTurn(msgs []*transcript.Message) *transcript.Message {
	for _, m := range msgs {
		switch m.Role() {
		case transcript.RoleAssistant, transcript.RoleToolResult, transcript.RoleTool:
			return m
		}
		if userSide(m.Role()) {
			return m
		}
	}
	return nil
}

// hasUserSide reports whether a message reaches the provider as a user turn.
func hasUserSide(msgs []*transcript.Message) bool {
	for _, m := range msgs {
		if userSide(m.Role()) {
			return true
		}
	}
	return false
}

// userSide reports whether a role is sent as a user turn: user, and the
// summary and custom messages the runtime sends as user messages (the
// contract's UserSide).
func userSide(role string) bool {
	switch role {
	case transcript.RoleUser, transcript.RoleCompactionSummary, transcript.RoleBranchSummary, transcript.RoleCustom:
		return true
	}
	return false
}

// prependBootstrap puts the "(session bootstrap)" user turn in front,
// stamped for the turn it precedes.
func prependBootstrap(t *transcript.Transcript, env *stage.Env, first *transcript.Message) {
	ts, ok := stampMs(env, first)
	t.Messages = append([]*transcript.Message{bootstrapTurn(ts, ok)}, t.Messages...)
}

// fillEmptyContent removes empty text blocks from a user, tool-result or
// assistant content and fills a content left empty; it reports whether m
// changed.
func fillEmptyContent(m *transcript.Message) bool {
	var filler string
	switch m.Role() {
	case transcript.RoleUser, transcript.RoleToolResult:
		filler = emptyContentOmitted
	case transcript.RoleAssistant:
		filler = streamErrorFallbackText
	default:
		return false
	}
	if s, ok := m.ContentString(); ok {
		if !transcript.IsBlank(s) {
			return false
		}
		m.SetBlocks([]*transcript.Block{transcript.TextBlock(filler)})
		return true
	}
	blocks, ok := m.Blocks()
	if !ok {
		return false
	}
	empty := 0
	for _, b := range blocks {
		if isBlankText(b) {
			empty++
		}
	}
	if empty == 0 && len(blocks) > 0 {
		return false
	}
	kept := make([]*transcript.Block, 0, len(blocks)-empty+1)
	for _, b := range blocks {
		if !isBlankText(b) {
			kept = append(kept, b)
		}
	}
	if len(kept) == 0 {
		kept = append(kept, transcript.TextBlock(filler))
	}
	m.SetBlocks(kept)
	return true
}

// withoutRoleless drops the entries that have no role; it returns the list
// itself when there are none.
func withoutRoleless(msgs []*transcript.Message) ([]*transcript.Message, int) {
	dropped := 0
	for _, m := range msgs {
		if !hasRole(m) {
			dropped++
		}
	}
	if dropped == 0 {
		return msgs, 0
	}
	out := make([]*transcript.Message, 0, len(msgs)-dropped)
	for _, m := range msgs {
		if hasRole(m) {
			out = append(out, m)
		}
	}
	return out, dropped
}
