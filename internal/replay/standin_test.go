package replay

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// mirroredSession is an OpenClaw session whose last assistant entries are
// stand-ins: the delivery mirror of the reply and a gateway-injected row.
// The model the session talked to is the GPT-5 turn before them.
var mirroredSession = strings.Join([]string{
	`{"type":"session","version":3,"id":"3f8a2c71-5b9e-4d06-a1c4-7e2b9d5f0a83","timestamp":"2026-03-14T08:00:00.000Z","cwd":"/srv/agent"}`,
	`{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-03-14T08:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"status?"}],"timestamp":1773475201000}}`,
	`{"type":"message","id":"b2c3d4e5","parentId":"a1b2c3d4","timestamp":"2026-03-14T08:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"All green."}],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":812,"output":9,"cacheRead":0,"cacheWrite":0,"totalTokens":821},"stopReason":"stop","timestamp":1773475205000}}`,
	`{"type":"message","id":"c3d4e5f6","parentId":"b2c3d4e5","timestamp":"2026-03-14T08:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"All green."}],"api":"openai-responses","provider":"openclaw","model":"delivery-mirror","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"stopReason":"stop","timestamp":1773475206000}}`,
	`{"type":"message","id":"d4e5f6a7","parentId":"c3d4e5f6","timestamp":"2026-03-14T08:00:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"(sent to #ops)"}],"api":"openai-responses","provider":" openclaw ","model":"gateway-injected ","stopReason":"stop","timestamp":1773475207000}}`,
}, "\n")

// TestLastAssistantTargetSkipsStandIns: a stand-in turn never chooses the
// target (issue 20: a session ending in its delivery mirror was sanitized
// for provider openclaw, model delivery-mirror).
func TestLastAssistantTargetSkipsStandIns(t *testing.T) {
	tr, err := transcript.DecodeSession([]byte(mirroredSession), transcript.Target{Provider: "unset"}, transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := LastAssistantTarget(tr)
	want := transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}
	if !ok || got != want {
		t.Fatalf("target %+v (%v), want %+v", got, ok, want)
	}
	only := strings.Join(strings.Split(mirroredSession, "\n")[:2], "\n") + "\n" + strings.Split(mirroredSession, "\n")[3]
	tr, err = transcript.DecodeSession([]byte(only), transcript.Target{Provider: "unset"}, transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := LastAssistantTarget(tr); ok {
		t.Fatalf("a session with only a stand-in turn got the target %+v", got)
	}
}
