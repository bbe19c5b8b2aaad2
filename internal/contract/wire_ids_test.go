package contract

import (
	"strings"
	"testing"
)

// TestIDsJudgedAsTheWireCarriesThem: a tool-call id limit applies to the
// value the target's wire sends, never to the stored form (issue 20). pi-ai
// stores a Responses call as "call_<24>|fc_<50 hex>" (83 bytes); the wire
// sends a 29-byte call_id and the fc_ item id apart.
func TestIDsJudgedAsTheWireCarriesThem(t *testing.T) {
	const (
		piID      = "call_NtjRUgard4yxVsz15DZgeKEn|fc_02a058930166c2b9e14ccc80e2fa769eac61b42b03f74904bb"
		longCall  = "call_HjboBHCp7zySI1S6sGMPTsNWHjboBHCp7zySI1S6sGMPTsNWHjboBHCp7zySI1S6" // 69 bytes
		notAnItem = "call_HjboBHCp7zySI1S6sGMPTsNW|2f8b4e7f4ba43816bc69f5448025a87a24883492f11ffc349d"
	)
	for _, tc := range []struct {
		name   string
		family Family
		id     string
		want   int // tool_call_id violations (the call and its result)
	}{
		{"responses: pi-ai stored id, call_id 29 bytes", OpenAIResponses, piID, 0},
		{"responses: a call_id over 64 bytes, item or not", OpenAIResponses, longCall + "|fc_02a058930166c2b9e14ccc80e2fa769eac61b42b03f74904bb", 2},
		{"responses: no fc_ half, the whole id is the call_id", OpenAIResponses, notAnItem, 2},
		{"chat completions: the stored id is sent whole", OpenAIChat, piID, 2},
		{"bedrock: the stored id is sent whole", BedrockConverse, piID, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, tc.family, 0, "["+hi+","+call(tc.id, "bash")+"]")
			if got := r.Counts[RuleToolCallID]; got != tc.want {
				t.Fatalf("%d tool_call_id violations, want %d: %v", got, tc.want, r.Violations)
			}
			if tc.want > 0 && tc.family == OpenAIResponses && strings.Contains(tc.id, "|fc_") &&
				!strings.Contains(r.Violations[0].Msg, "call_id") {
				t.Errorf("the violation does not name the call_id: %s", r.Violations[0].Msg)
			}
		})
	}
}

// copilotItem is an item id of GitHub Copilot's Responses endpoint: base64,
// 408 characters.
var copilotItem = strings.Repeat("kQ7xZ2mP/9Lw+R4tY8vZc3sHdXq7bN2m", 12) + strings.Repeat("A", 20) + "+m=="

// TestSplitCallItem: the split the wire and the contract share.
func TestSplitCallItem(t *testing.T) {
	for _, tc := range []struct{ in, call, item string }{
		{"call_NtjRUgard4yxVsz15DZgeKEn|fc_02a0589301", "call_NtjRUgard4yxVsz15DZgeKEn", "fc_02a0589301"},
		{"call_NtjRUgard4yxVsz15DZgeKEn|fc_a|fc_b", "call_NtjRUgard4yxVsz15DZgeKEn", "fc_a|fc_b"},
		{"call_NtjRUgard4yxVsz15DZgeKEn|rs_02a0589301", "call_NtjRUgard4yxVsz15DZgeKEn|rs_02a0589301", ""},
		{"|fc_02a0589301", "|fc_02a0589301", ""},
		{"call_NtjRUgard4yxVsz15DZgeKEn|", "call_NtjRUgard4yxVsz15DZgeKEn|", ""},
		{"toolu_014B3Teb4zWbqVaX7RHL0eR9", "toolu_014B3Teb4zWbqVaX7RHL0eR9", ""},
		// GitHub Copilot: the item half is its opaque base64 id
		{"call_MHxqDoDDmNRfc1WyS2GCa7pf|" + copilotItem, "call_MHxqDoDDmNRfc1WyS2GCa7pf", copilotItem},
		{"call_MHxqDoDDmNRfc1WyS2GCa7pf|bad id with spaces, long enough", "call_MHxqDoDDmNRfc1WyS2GCa7pf|bad id with spaces, long enough", ""},
		{"call_MHxqDoDDmNRfc1WyS2GCa7pf|c2hvcnQ=", "call_MHxqDoDDmNRfc1WyS2GCa7pf|c2hvcnQ=", ""},
	} {
		call, item, ok := SplitCallItem(tc.in)
		if call != tc.call || item != tc.item || ok != (tc.item != "") {
			t.Errorf("SplitCallItem(%q) = %q, %q, %v; want %q, %q", tc.in, call, item, ok, tc.call, tc.item)
		}
	}
}
