package pairing

import "testing"

// TestFirstClaimKeptExactWinsOnlyOverAdoption: two results answer one
// call. A result that matched after trimming made the first claim and is
// kept, as OpenClaw keeps it (spec §3.7 step 2, FIFO per id); the later
// exact one is the duplicate. "An exact id wins" applies only over a
// legacy id-less adoption (issue 16), never over a trimmed match (issue 20:
// [A[toolCall X], R{"\uFEFFX"}, R{"X"}] kept the second).
func TestFirstClaimKeptExactWinsOnlyOverAdoption(t *testing.T) {
	const id = "toolu_01a0uUgFBgvHbUaRh6K1QOc4"
	call := asst("toolUse", 1776000100000, tc(id, "read"))
	runPairingCases(t, []pairingCase{
		{
			name:   "BOM-padded result first: it keeps the call",
			in:     arr(user("go"), call, res("\ufeff"+id, "read", "first"), res(id, "read", "second"), user("next")),
			want:   arr(user("go"), call, res("\ufeff"+id, "read", "first"), user("next")),
			report: map[string]int{"duplicate": 1},
		},
		{
			name:   "space-padded result first: it keeps the call",
			in:     arr(user("go"), call, res(" "+id+" ", "read", "first"), res(id, "read", "second"), user("next")),
			want:   arr(user("go"), call, res(" "+id+" ", "read", "first"), user("next")),
			report: map[string]int{"duplicate": 1},
		},
		{
			name: "id-less adoption first: the exact result wins",
			in: arr(user("go"), call, `{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"id-less"}],"isError":false}`,
				res(id, "read", "exact"), user("next")),
			want:   arr(user("go"), call, res(id, "read", "exact"), user("next")),
			report: map[string]int{"duplicate": 1},
		},
	})
}
