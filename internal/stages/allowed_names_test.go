package stages

import (
	"bytes"
	"maps"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// refusedNames renames the generators' tools to real names that targets
// refuse: `browser.open` (a dot: Anthropic, Bedrock, OpenAI, Mistral),
// `github:create_issue` (an MCP server:tool name: the same targets) and
// `1password.item_get` (a digit first: Gemini too).
var refusedNames = map[string]string{"read": "browser.open", "web_search": "github:create_issue", "exec": "1password.item_get"}

// withRefusedNames rewrites every call name and result toolName of a
// history by refusedNames.
func withRefusedNames(history []byte) []byte {
	for from, to := range refusedNames {
		for _, k := range []string{`"name":"`, `"toolName":"`} {
			history = bytes.ReplaceAll(history, []byte(k+from+`"`), []byte(k+to+`"`))
		}
	}
	return history
}

// allowedNames is the job's allowed_tool_names: the refused names as the
// runner knows them and the generators' other tools.
var allowedNames = []string{"browser.open", "github:create_issue", "1password.item_get", "write", "memory_get", "edit", "screenshot"}

// TestReadyPayloadSanitizedAgain is issue 29's idempotency property: a
// ready payload, sanitized again with the same job options, is unchanged
// (messages and tool_names), over the realistic generators (RealShapes with
// each target's own shapes, stand-ins and extra roles on every other seed,
// and the realistic damage) with allowed_tool_names holding names the
// target refuses. At 0988e1e the second pass dropped every renamed call,
// `browser_open` not being in the list, and its result went as an orphan.
func TestReadyPayloadSanitizedAgain(t *testing.T) {
	opts := stage.Settings{Request: settings.Request{AllowedToolNames: allowedNames}}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			ready, renamed := 0, 0
			for seed := range realSeeds() {
				extras := seed%2 == 1
				histories := [][]byte{
					sessiongen.RealShapes(sessiongen.RealConfig{Seed: uint64(2900 + seed), Target: transcript.Target(tc.t), Turns: 8,
						StandIns: extras, ExtraRoles: extras}).History(),
					sessiongen.New(sessiongen.Config{Seed: uint64(2900 + seed), Messages: 40, ToolCallDensity: 0.7, Damage: sessiongen.Realistic(),
						TextChars: 30, ToolResultChars: 20, RealLengthIDs: true, Target: transcript.Target(tc.t)}).History(),
				}
				for k, history := range histories {
					input := withRefusedNames(history)
					first, _, rej := runChain(t, tc.t, input, nil, opts)
					if rej != nil {
						continue // not a ready payload: nothing to sanitize again
					}
					ready++
					if len(first.ToolNames) > 0 {
						renamed++
					}
					out := first.MessagesJSON()
					second, env, rej := runChain(t, tc.t, out, first.AppendEntries, opts)
					if rej != nil {
						t.Fatalf("seed %d history %d: the ready payload is refused when sanitized again: %v", seed, k, rej)
					}
					if got := second.MessagesJSON(); !bytes.Equal(out, got) {
						t.Fatalf("seed %d history %d: sanitized again, the payload changed (%v)\n%s", seed, k, env.Report.Stages, messageDiff(t, out, got))
					}
					if !maps.Equal(first.ToolNames, second.ToolNames) {
						t.Fatalf("seed %d history %d: tool_names %v, then %v", seed, k, first.ToolNames, second.ToolNames)
					}
				}
			}
			// every target with a name rule refuses one of the names (Gemini
			// the digit-first one); a passthrough target has none
			if ready == 0 || renamed == 0 && policy.Resolve(tc.t).Contract.ToolNames.Pattern != "" {
				t.Fatalf("%d ready payloads, %d with renamed tools: the property was not exercised", ready, renamed)
			}
			t.Logf("%d ready payloads, %d with renamed tools", ready, renamed)
		})
	}
}
