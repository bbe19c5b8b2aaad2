package stages

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// customMessageSession is an OpenClaw v3 session file whose runtime injects
// a custom_message entry (pi's CustomMessageEntry: customType, content,
// display, details) that the next turn acts on.
const customMessageSession = `{"type":"session","version":3,"id":"8f2c1d4e-5a6b-4c7d-9e8f-0a1b2c3d4e5f","timestamp":"2026-11-30T09:00:00.000Z","cwd":"/home/user/.openclaw/workspace"}
{"type":"model_change","id":"a1b2c3d4","parentId":null,"timestamp":"2026-11-30T09:00:00.000Z","provider":"anthropic","modelId":"claude-opus-4-6"}
{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2026-11-30T09:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Keep an eye on the nightly build."}],"timestamp":1796029201000}}
{"type":"message","id":"c3d4e5f6","parentId":"b2c3d4e5","timestamp":"2026-11-30T09:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Will do."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","usage":{"input":812,"output":9,"cacheRead":0,"cacheWrite":0,"totalTokens":821,"cost":{"input":0.00406,"output":0.000225,"cacheRead":0,"cacheWrite":0,"total":0.004285}},"stopReason":"stop","timestamp":1796029203000}}
{"type":"custom_message","id":"d4e5f6a7","parentId":"c3d4e5f6","timestamp":"2026-11-30T09:30:00.000Z","customType":"openclaw:runtime-context","content":"Read HEARTBEAT.md and follow it strictly. If nothing needs attention, reply HEARTBEAT_OK.","display":false,"details":{"source":"heartbeat","intervalMs":1800000}}
{"type":"message","id":"e5f6a7b8","parentId":"d4e5f6a7","timestamp":"2026-11-30T09:30:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01Hx7bQ2mZ9kVt4LpR8sWn3c","name":"read","arguments":{"path":"HEARTBEAT.md"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-6","usage":{"input":840,"output":31,"cacheRead":0,"cacheWrite":0,"totalTokens":871,"cost":{"input":0.0042,"output":0.000775,"cacheRead":0,"cacheWrite":0,"total":0.004975}},"stopReason":"toolUse","timestamp":1796031002000}}
{"type":"message","id":"f6a7b8c9","parentId":"e5f6a7b8","timestamp":"2026-11-30T09:30:02.100Z","message":{"role":"toolResult","toolCallId":"toolu_01Hx7bQ2mZ9kVt4LpR8sWn3c","toolName":"read","content":[{"type":"text","text":"- check the nightly build"}],"isError":false,"timestamp":1796031002100}}
`

// TestCustomMessageEntry: a custom_message entry is read as pi's
// buildSessionContext reads it, a role custom message, and every target is
// sent its content as user content (pi's convertToLlm); the body passes the
// target's contract. At 0988e1e the entry was skipped without a count.
func TestCustomMessageEntry(t *testing.T) {
	const instruction = "Read HEARTBEAT.md and follow it strictly."
	for f, tg := range formatTargets {
		t.Run(string(f), func(t *testing.T) {
			tr, err := transcript.DecodeSession([]byte(customMessageSession), tg, transcript.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"role":"custom","customType":"openclaw:runtime-context","content":"Read HEARTBEAT.md and follow it strictly. If nothing needs attention, reply HEARTBEAT_OK.","display":false,"details":{"source":"heartbeat","intervalMs":1800000},"timestamp":1796031000000}`
			if len(tr.Messages) != 5 || string(tr.Messages[2].AppendJSON(nil)) != want {
				t.Fatalf("decoded %s", tr.MessagesJSON())
			}
			out, _, rej := runChain(t, tg, tr.MessagesJSON(), nil, stage.Settings{})
			if rej != nil {
				t.Fatalf("dead letter %s: %s", rej.Code, rej.Msg)
			}
			if !strings.Contains(string(out.MessagesJSON()), `"role":"custom"`) {
				t.Fatalf("the custom message is gone from the payload: %s", out.MessagesJSON())
			}
			p := policy.Resolve(tg)
			body := wire.Render(nil, wire.FormatFor(p), p, out.Messages, wire.Request{})
			s := string(body)
			at := strings.Index(s, instruction)
			if at < 0 {
				t.Fatalf("the instruction is not in the body: %s", s)
			}
			if strings.Contains(s, "intervalMs") {
				t.Errorf("details reached the model: %s", s)
			}
			if before, after := strings.Index(s, "Will do."), strings.Index(s, "check the nightly build"); before > at || after < at {
				t.Errorf("the instruction is not between the turns it came between: %s", s)
			}
			res, err := contract.CheckBody(contract.BodyFormat(f), body, tg.Model)
			if err != nil || !res.OK() {
				t.Errorf("contract: %v %s\n%s", err, res.Summary(), s)
			}
		})
	}
}
