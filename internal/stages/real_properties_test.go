package stages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// onValid lists, by stage and report key, the documented rules that change
// the bytes of a valid history without changing what the provider is told
// (issue 20, property a). Anything else a stage reports on a history its own
// target's runtime wrote is a false change.
//
//   - model_snapshot (§3.13): appends a session entry, no message changes;
//   - strip_details (§3.5 port note): tool results lose details, which no
//     wire sends;
//   - tool_call_inputs partial_json_removed (§3.5): the partialJson pi-ai
//     leaves on finished calls goes, the arguments stay;
//   - tool_call_ids, tool_call_ids_early (§3.6) and fc_downgrade (§3.10):
//     ids rewritten to the policy's id mode, calls and results alike;
//   - drop_thinking_blocks (§3.8.1): thinking the policy says the target
//     does not take back;
//   - assistant_replay (§3.2, §3.16): transcript-only stand-ins
//     (delivery-mirror, gateway-injected) and NO_REPLY answers dropped, blank
//     text blocks (Gemini's trailing "") removed, empty failed turns given
//     the sentinel text;
//   - anthropic_turns, gemini_turns, provider_turns merges (§3.12): the
//     turns left adjacent once those stand-ins are gone are merged.
var onValid = map[string][]string{
	"model_snapshot":       {"appended"},
	"strip_details":        {"removed"},
	"tool_call_inputs":     {"partial_json_removed"},
	"tool_call_ids":        {"calls_rewritten", "results_rewritten"},
	"tool_call_ids_early":  {"calls_rewritten", "results_rewritten"},
	"fc_downgrade":         {"calls", "results"},
	"drop_thinking_blocks": {"dropped"},
	"assistant_replay":     {"dropped", "normalised", "sentinel"},
	"anthropic_turns":      {"merged"},
	"gemini_turns":         {"merged"},
	"provider_turns":       {"users_merged", "assistants_merged"},
}

// realSeeds is how many histories each real-shape property tries per target.
func realSeeds() int {
	if testing.Short() {
		return 2
	}
	return 6
}

// TestRealNoFalseRefusal is issue 20's property (a): a history that the
// target's own runtime wrote (RealShapes with the target's shapes: its ids,
// signatures, partialJson, details, textSignature, thoughtSignature, usage;
// every other seed with stand-ins, a retried failure, NO_REPLY, bashExecution
// and custom messages) comes back ready on that target; no stage reports a
// change outside onValid; and without stand-ins every message is the input's
// once the onValid changes are undone (details, partialJson and blank text
// removed, ids compared by order of appearance, thinking dropped where
// drop_thinking_blocks ran).
func TestRealNoFalseRefusal(t *testing.T) {
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range realSeeds() {
				extras := seed%2 == 1
				input := sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(2000 + seed), Target: transcript.Target(tc.t), Turns: 6,
					StandIns: extras, ExtraRoles: extras}).History()
				tr, env, rej := runChain(t, tc.t, input, nil, stage.Settings{})
				if rej != nil {
					t.Errorf("seed %d: a valid history is refused: %v", seed, rej)
					continue
				}
				if bad := changesOutside(env.Report.Stages.Map(), onValid); len(bad) > 0 {
					t.Errorf("seed %d: stages changed a valid history beyond the documented no-ops: %v", seed, bad)
					continue
				}
				if extras {
					continue
				}
				dropThinking := env.Report.Stages.Of("drop_thinking_blocks") != nil
				want, got := normalized(t, input, dropThinking), normalized(t, tr.MessagesJSON(), dropThinking)
				if !bytes.Equal(want, got) {
					t.Errorf("seed %d: the output is not the input once the documented no-ops are undone:\n%s", seed, messageDiff(t, want, got))
				}
			}
		})
	}
}

// TestRealNoValidCallDropped is issue 20's property (b): over realistic
// histories with turns of other providers before the target's (model
// switches, their ids, partialJson and signatures kept), stand-ins, retried
// failures and the extra roles, every tool call (all have complete
// arguments) and its result survive on every target: each result the input
// has is in the output, right after an assistant turn holding a call of the
// same name whose id is the result's (ids may be rewritten). The job must
// also come back ready.
func TestRealNoValidCallDropped(t *testing.T) {
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range realSeeds() {
				input := sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(2100 + seed), Target: transcript.Target(tc.t), Turns: 7,
					Foreign: true, StandIns: seed%2 == 0, ExtraRoles: seed%3 == 0}).History()
				if len(lostPairs(t, input, []byte("[]"))) == 0 {
					t.Fatalf("seed %d: the history has no call/result pair to follow", seed)
				}
				tr, env, rej := runChain(t, tc.t, input, nil, stage.Settings{})
				if rej != nil {
					t.Errorf("seed %d: refused: %v", seed, rej)
				}
				if lost := lostPairs(t, input, tr.MessagesJSON()); len(lost) > 0 {
					rep, _ := json.Marshal(env.Report.Stages)
					t.Errorf("seed %d: %d of the input's call/result pairs are lost: %s\nreport %s", seed, len(lost), strings.Join(lost, "; "), rep)
				}
			}
		})
	}
}

// changesOutside returns the stage/key pairs of report that allowed does not
// list, sorted.
func changesOutside(report map[string]map[string]int, allowed map[string][]string) []string {
	var bad []string
	for st, keys := range report {
		for k, n := range keys {
			ok := false
			for _, a := range allowed[st] {
				ok = ok || a == k
			}
			if !ok && n != 0 {
				bad = append(bad, fmt.Sprintf("%s.%s=%d", st, k, n))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// normalized re-encodes a message array with the onValid changes undone on
// both sides: no details on results, no partialJson on calls, no blank text
// blocks, tool-call ids replaced by their order of first appearance, and no
// thinking blocks when dropThinking.
func normalized(t *testing.T, data []byte, dropThinking bool) []byte {
	t.Helper()
	var ms []map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&ms); err != nil {
		t.Fatal(err)
	}
	order := map[string]int{}
	ord := func(id string) string {
		if _, ok := order[id]; !ok {
			order[id] = len(order)
		}
		return fmt.Sprintf("#%d", order[id])
	}
	for _, m := range ms {
		delete(m, "details")
		if id, ok := m["toolCallId"].(string); ok {
			m["toolCallId"] = ord(id)
		}
		blocks, ok := m["content"].([]any)
		if !ok {
			continue
		}
		kept := blocks[:0]
		for _, b := range blocks {
			bm, ok := b.(map[string]any)
			if !ok {
				kept = append(kept, b)
				continue
			}
			if text, isText := bm["text"].(string); bm["type"] == "text" && isText && strings.TrimSpace(text) == "" {
				continue
			}
			if dropThinking && bm["type"] == "thinking" {
				continue
			}
			delete(bm, "partialJson")
			if id, ok := bm["id"].(string); ok && bm["type"] == "toolCall" {
				bm["id"] = ord(id)
			}
			kept = append(kept, bm)
		}
		m["content"] = kept
	}
	out, err := json.Marshal(ms)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lostPairs returns, for every tool result of input whose marker (its text
// up to the first space) has no result in out right after an assistant turn
// holding a call of the same name and the result's id, a description.
func lostPairs(t *testing.T, input, out []byte) []string {
	t.Helper()
	type pair struct{ marker, name, id string }
	collect := func(data []byte) (map[string]pair, map[string]bool) {
		ms := parse(t, data)
		results := map[string]pair{}
		paired := map[string]bool{}
		calls := map[string]string{} // id -> name, of the latest assistant turn
		for _, m := range ms {
			switch m.Role {
			case "assistant":
				calls = map[string]string{}
				for _, b := range blocksOf(m) {
					if isCall(b) {
						calls[b.ID] = b.Name
					}
				}
			case "toolResult":
				var content []struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(m.Content, &content)
				if len(content) == 0 {
					continue
				}
				marker, _, _ := strings.Cut(content[0].Text, " ")
				if !strings.HasPrefix(marker, "ok:") {
					continue
				}
				results[marker] = pair{marker, "", m.ToolCallID}
				if name, ok := calls[m.ToolCallID]; ok {
					results[marker] = pair{marker, name, m.ToolCallID}
					paired[marker] = true
				}
			}
		}
		return results, paired
	}
	in, _ := collect(input)
	outResults, outPaired := collect(out)
	var lost []string
	markers := make([]string, 0, len(in))
	for k := range in {
		markers = append(markers, k)
	}
	sort.Strings(markers)
	for _, k := range markers {
		p := in[k]
		o, present := outResults[k]
		switch {
		case !present:
			lost = append(lost, fmt.Sprintf("%s (call %s %s) dropped", k, p.name, p.id))
		case !outPaired[k]:
			lost = append(lost, fmt.Sprintf("%s (call %s) kept without its call (result id %s)", k, p.id, o.id))
		case o.name != p.name:
			lost = append(lost, fmt.Sprintf("%s paired with a %s call, not %s", k, o.name, p.name))
		}
	}
	return lost
}
