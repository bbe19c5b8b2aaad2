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
func TestReadResultIDs(t *testing.T) {
	for _, c := range []struct {
		name, members string
		ok            bool
		want          resultIDs
	}{
		{"toolCallId alone", `"toolCallId":"call_a"`, true, resultIDs{k: "call_a", raw: "call_a", callIDOnly: true}},
		{"toolCallId with spaces", `"toolCallId":" call_a "`, true, resultIDs{k: "call_a", raw: " call_a ", callIDOnly: true}},
		{"a blank toolUseId beside it", `"toolCallId":"call_a","toolUseId":"  "`, true, resultIDs{k: "call_a", raw: "call_a", callIDOnly: true}},
		{"toolUseId alone", `"toolUseId":"toolu_1"`, true, resultIDs{k: "toolu_1", raw: "toolu_1"}},
		{"both, differing", `"toolCallId":"call_a","toolUseId":"toolu_1"`, true, resultIDs{k: "call_a", raw: "call_a"}},
		{"call_id first for the rule, toolCallId for pairing", `"toolCallId":"call_a","call_id":"fc_b"`, true, resultIDs{k: "fc_b", raw: "call_a"}},
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
