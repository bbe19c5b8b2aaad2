package pairing

import (
	"context"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// FunctionCallDowngradeName is the report key and metric label of FunctionCallDowngrade.
const FunctionCallDowngradeName = "fc_downgrade"

// FunctionCallDowngrade is the fc_ pairing downgrade of spec §3.8.3 (§4 step
// 10, Responses family only). OpenAI rejects a replayed function_call whose
// fc_ item id has lost its reasoning item, so in each assistant turn a tool
// call with id "call_X|fc_Y" (split at the first "|", both sides non-empty,
// the item side starting with "fc_") that no replayable reasoning block
// precedes is rewritten to "call_X". The results in the run of toolResult
// messages right after the turn are rewritten with it; any other message
// ends the run. A call that follows replayable reasoning keeps its pair.
//
// Choice: a result is matched on its trimmed id, and every id member it
// carries (toolCallId, toolUseId and the legacy aliases) that names the
// call is rewritten, not only toolCallId and toolUseId, so that no alias
// keeps naming a call id that no longer exists. Count: calls, results.
func FunctionCallDowngrade() stage.Stage {
	return stage.Stage{Name: FunctionCallDowngradeName, On: responsesOn, Needs: transcript.FactToolCall | transcript.FactToolResult, Apply: applyFunctionCallDowngrade}
}

func applyFunctionCallDowngrade(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if !responsesOn(env) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var mapping map[string]string // the current turn's rewrites; nil when none
	calls, results := 0, 0
	for _, m := range t.Messages {
		switch m.Role() {
		case transcript.RoleAssistant:
			mapping = nil
			blocks, _ := m.Blocks()
			reasoning := false
			for _, b := range blocks {
				if isReplayableReasoning(b) {
					reasoning = true
					continue
				}
				if reasoning || !b.IsToolCall() {
					continue
				}
				id, ok := b.CallID()
				if !ok {
					continue
				}
				if call, ok := fcCallPart(id); ok {
					b.SetString("id", call)
					if mapping == nil {
						mapping = map[string]string{}
					}
					mapping[transcript.TrimID(id)] = call
					calls++
				}
			}
		case transcript.RoleToolResult:
			if mapping != nil && rewriteResultIDs(m, mapping) {
				results++
			}
		default:
			mapping = nil
		}
	}
	env.Report.Add(FunctionCallDowngradeName, "calls", calls)
	env.Report.Add(FunctionCallDowngradeName, "results", results)
	return nil
}

// fcCallPart returns X for an id "X|Y" split at the first "|" where X is not
// empty and Y starts with "fc_" (spec §3.8.3).
func fcCallPart(id string) (string, bool) {
	i := strings.IndexByte(id, '|')
	if i <= 0 {
		return "", false
	}
	item := id[i+1:]
	if !strings.HasPrefix(item, "fc_") {
		return "", false
	}
	return id[:i], true
}

// rewriteResultIDs rewrites every id member of a result whose trimmed value
// the mapping names, and reports whether it changed anything.
func rewriteResultIDs(m *transcript.Message, mapping map[string]string) bool {
	changed := false
	for _, k := range transcript.ResultIDFields {
		s, ok := m.String(k)
		if !ok {
			continue
		}
		if to, ok := mapping[transcript.TrimID(s)]; ok && s != to {
			m.SetString(k, to)
			changed = true
		}
	}
	return changed
}
