package stages

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// finishedCallHistory is a GPT-5 turn as pi-ai stores it (a "call|fc_" id
// of 83 characters, the response's msg_ and rs_ prefixes) whose finished
// read call kept a partialJson that does not parse beside complete
// arguments; the turn ended normally and the tool ran.
const finishedCallHistory = `[{"role":"user","content":[{"type":"text","text":"What is in the root directory?"}],"timestamp":1796031000000},` +
	`{"role":"assistant","content":[{"type":"text","text":"Let me look.","textSignature":"msg_0b652338ac8406ca01692f1e3c9a0c8190b1f0f5b0d8e2a1c4"},` +
	`{"type":"toolCall","id":"call_U8JZpDE0iGXlD6gNCFbaEPFj|fc_0b652338ac8406ca01692f1e3d44b48190a7c1e5f9e2b3d4c6","name":"read","arguments":{"path":"/"},"partialJson":"{\"path\":\"/\""}],` +
	`"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":3120,"output":41,"cacheRead":0,"cacheWrite":0,"totalTokens":3161,"cost":{"input":0.0039,"output":0.00041,"cacheRead":0,"cacheWrite":0,"total":0.00431}},"stopReason":"toolUse","timestamp":1796031002000},` +
	`{"role":"toolResult","toolCallId":"call_U8JZpDE0iGXlD6gNCFbaEPFj|fc_0b652338ac8406ca01692f1e3d44b48190a7c1e5f9e2b3d4c6","toolName":"read",` +
	`"content":[{"type":"text","text":"EISDIR: illegal operation on a directory, read"}],"details":{"status":"error","tool":"read","error":"EISDIR: illegal operation on a directory, read"},"isError":false,"timestamp":1796031002150}]`

// TestFinishedCallWithLeftoverPartialJSON is issue 29's lost call: at
// 0988e1e it was dropped with its result on every target. Now the call and
// its result reach every target's body.
func TestFinishedCallWithLeftoverPartialJSON(t *testing.T) {
	for f, tg := range formatTargets {
		t.Run(string(f), func(t *testing.T) {
			out, env, rej := runChain(t, tg, []byte(finishedCallHistory), nil, stage.Settings{})
			if rej != nil {
				t.Fatalf("dead letter %s: %s", rej.Code, rej.Msg)
			}
			if n := env.Report.Stages.Get("tool_call_inputs", "dropped_calls"); n != 0 {
				t.Errorf("%d calls dropped", n)
			}
			p := policy.Resolve(tg)
			s := string(wire.Render(nil, wire.FormatFor(p), p, out.Messages, wire.Request{}))
			if !strings.Contains(s, `"read"`) || !strings.Contains(s, "EISDIR: illegal operation on a directory") || strings.Contains(s, "partialJson") {
				t.Errorf("the call or its result is lost: %s", s)
			}
		})
	}
}
