package pairing

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// AlignResultIDs goes beyond OpenClaw: after pairing, each tool result
// follows its call, but one that matched its call only after trimming
// (spec §3.7 compares trimmed ids) still carries its padded id, and
// providers compare ids exactly (OpenAI: "tool_call_id ... did not have
// response messages"; Anthropic: "unexpected tool_use_id"). This rule writes
// the call's id, as written, into every non-blank id member of such a
// result. Results that already carry it are not touched. Where the
// pairing repair proved every result already carries it
// (stage.Env.ResultIDsExact) and the history is unedited since, the rule
// reads nothing.
func AlignResultIDs() stage.Stage {
	const name = "result_ids_aligned"
	return stage.Stage{Name: name, Needs: transcript.FactToolCall | transcript.FactToolResult, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if _, ok := env.FoundUnedited(env.ResultIDsExact); ok {
			env.NoEdit()
			return nil
		}
		n := 0
		msgs := t.Messages
		for i := 0; i < len(msgs); i++ {
			m := msgs[i]
			if !m.IsObject() || m.Role() != transcript.RoleAssistant {
				continue
			}
			blocks, _ := m.Blocks()
			for _, b := range blocks {
				callID, isCall := b.CallID()
				if !isCall || !b.IsToolCall() {
					continue
				}
				if i+1 >= len(msgs) || !msgs[i+1].IsObject() || roleOf(msgs[i+1]) != roleResult {
					break
				}
				i++
				r := msgs[i]
				if s, _ := r.String("toolCallId"); s == callID {
					continue // the usual case: the first id member is the call's id
				}
				if raw := r.RawResultID(); raw == callID || transcript.TrimID(raw) != transcript.TrimID(callID) {
					continue
				}
				for _, key := range transcript.ResultIDFields {
					if s, ok := r.String(key); ok && transcript.TrimID(s) != "" && s != callID {
						r.SetString(key, callID)
					}
				}
				n++
			}
		}
		env.Report.Add(name, "results", n)
		return nil
	}}
}
