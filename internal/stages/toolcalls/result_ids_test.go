package toolcalls

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// readResultIDs reads, in one look at each id member: the trimmed id of the
// first non-blank member in resultIDPriority order, the id as written that
// pairing reads (Message.RawResultID, its own order), and whether toolCallId
// is the only non-blank id member; and writeResultID of raw changes nothing
// to a result whose toolCallId is its only one.
// The ids have the real shapes (docs/real-shapes.md): Chat's call_ + 24
// base62, Anthropic's toolu_01 + 22 base62, Responses' fc_ + 50 hex.
func TestReadResultIDs(t *testing.T) {
	for _, c := range []struct {
		name, members string
		ok            bool
		want          resultIDs
	}{
		{"toolCallId alone", `"toolCallId":"call_Xk7pQ2mN9vR4sT6wY8zA1bC3"`, true, resultIDs{k: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3", raw: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3", callIDOnly: true}},
		{"toolCallId with spaces", `"toolCallId":" call_Xk7pQ2mN9vR4sT6wY8zA1bC3 "`, true, resultIDs{k: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3", raw: " call_Xk7pQ2mN9vR4sT6wY8zA1bC3 ", callIDOnly: true}},
		{"a blank toolUseId beside it", `"toolCallId":"call_Xk7pQ2mN9vR4sT6wY8zA1bC3","toolUseId":"  "`, true, resultIDs{k: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3", raw: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3", callIDOnly: true}},
		{"toolUseId alone", `"toolUseId":"toolu_01Dq8Hn4Kp2Lm6Rt9Vw3Xy5Z"`, true, resultIDs{k: "toolu_01Dq8Hn4Kp2Lm6Rt9Vw3Xy5Z", raw: "toolu_01Dq8Hn4Kp2Lm6Rt9Vw3Xy5Z"}},
		{"both, differing", `"toolCallId":"call_Xk7pQ2mN9vR4sT6wY8zA1bC3","toolUseId":"toolu_01Dq8Hn4Kp2Lm6Rt9Vw3Xy5Z"`, true, resultIDs{k: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3", raw: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3"}},
		{"call_id first for the rule, toolCallId for pairing", `"toolCallId":"call_Xk7pQ2mN9vR4sT6wY8zA1bC3","call_id":"fc_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607182"`, true, resultIDs{k: "fc_0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607182", raw: "call_Xk7pQ2mN9vR4sT6wY8zA1bC3"}},
		{"snake case", `"tool_call_id":"x","tool_use_id":"y"`, true, resultIDs{k: "x", raw: "x"}},
		{"callId", `"callId":" c "`, true, resultIDs{k: "c", raw: " c "}},
		{"not a string", `"toolCallId":7`, false, resultIDs{}},
		{"blank", `"toolCallId":" "`, false, resultIDs{}},
		{"none", `"toolName":"read"`, false, resultIDs{}},
	} {
		msgs := `[{"role":"toolResult",` + c.members + `,"content":[{"type":"text","text":"ok"}]}]`
		tr, err := transcript.FromMessages([]byte(msgs), anthropic)
		if err != nil {
			t.Fatal(err)
		}
		m := tr.Messages[0]
		got, ok := readResultIDs(m)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: readResultIDs = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
		if ok && got.raw != m.RawResultID() {
			t.Errorf("%s: raw %q, RawResultID %q", c.name, got.raw, m.RawResultID())
		}
		if got.callIDOnly && (writeResultID(m, got.raw) || m.Changed()) {
			t.Errorf("%s: writing its raw id back changed the result: %s", c.name, tr.MessagesJSON())
		}
	}
}
