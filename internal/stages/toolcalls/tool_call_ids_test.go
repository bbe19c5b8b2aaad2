package toolcalls

import (
	"context"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestToolCallIDsVectors runs spec §5 V18–V24 and the verified-values table
// of §3.6 through the stage.
func TestToolCallIDsVectors(t *testing.T) {
	a50 := strings.Repeat("a", 50)
	cases := []idCase{
		{name: "V18 strict", target: google,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"call|item:123","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call|item:123","toolName":"read","content":[{"type":"text","text":"ok"}]}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"callitem123","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"callitem123","toolName":"read","content":[{"type":"text","text":"ok"}]}]`},
		{name: "V19 strict collision",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"call_a|b","name":"read","arguments":{}},{"type":"toolCall","id":"call_a:b","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_a|b","content":"one"},{"role":"toolResult","toolCallId":"call_a:b","content":"two"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"callab","name":"read","arguments":{}},{"type":"toolCall","id":"callab164e5cbf","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"callab","content":"one"},{"role":"toolResult","toolCallId":"callab164e5cbf","content":"two"}]`},
		{name: "V20 strict9 collision", target: mistral,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"call_a|b","name":"read","arguments":{}},{"type":"toolCall","id":"call_a:b","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_a|b","content":"one"},{"role":"toolResult","toolCallId":"call_a:b","content":"two"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"a4b42f05f","name":"read","arguments":{}},{"type":"toolCall","id":"1f565f6b4","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"a4b42f05f","content":"one"},{"role":"toolResult","toolCallId":"1f565f6b4","content":"two"}]`},
		{name: "V20 strict9 single", target: mistral,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"call|item:123","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call|item:123","content":"ok"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"callitem1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"callitem1","content":"ok"}]`},
		{name: "V21 repeated raw id strict",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}},{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}}]},{"role":"toolResult","toolCallId":"edit:22","content":"one"},{"role":"toolResult","toolCallId":"edit:22","content":"two"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"edit22","name":"edit","arguments":{}},{"type":"toolCall","id":"edit222","name":"edit","arguments":{}}]},{"role":"toolResult","toolCallId":"edit22","content":"one"},{"role":"toolResult","toolCallId":"edit222","content":"two"}]`},
		{name: "V21 repeated raw id strict9", target: mistral,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}},{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}}]},{"role":"toolResult","toolCallId":"edit:22","content":"one"},{"role":"toolResult","toolCallId":"edit:22","content":"two"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"abe926ef6","name":"edit","arguments":{}},{"type":"toolCall","id":"2e112bc8c","name":"edit","arguments":{}}]},{"role":"toolResult","toolCallId":"abe926ef6","content":"one"},{"role":"toolResult","toolCallId":"2e112bc8c","content":"two"}]`},
		{name: "V22 shared toolCallId and toolUseId",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}},{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}}]},{"role":"toolResult","toolCallId":"edit:22","toolUseId":"edit:22","content":"one"},{"role":"toolResult","toolCallId":"edit:22","content":"two"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"edit22","name":"edit","arguments":{}},{"type":"toolCall","id":"edit222","name":"edit","arguments":{}}]},{"role":"toolResult","toolCallId":"edit22","toolUseId":"edit22","content":"one"},{"role":"toolResult","toolCallId":"edit222","content":"two"}]`},
		{name: "V23 native Anthropic preserved",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01AbC","name":"read","arguments":{}},{"type":"toolCall","id":"call_1|fc_2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_01AbC","content":"a"},{"role":"toolResult","toolCallId":"call_1|fc_2","content":"b"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01AbC","name":"read","arguments":{}},{"type":"toolCall","id":"call1fc2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_01AbC","content":"a"},{"role":"toolResult","toolCallId":"call1fc2","content":"b"}]`},
		{name: "V24 no-op",
			in: `[{"role":"assistant","content":[{"type":"toolCall","id":"call1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call1","content":[{"type":"text","text":"ok"}]}]`},
		{name: "table orphan result strict",
			in:   `[{"role":"user","content":"hi"},{"role":"toolResult","toolCallId":"call_x","content":"late"}]`,
			want: `[{"role":"user","content":"hi"},{"role":"toolResult","toolCallId":"callxtoolresult1","content":"late"}]`},
		{name: "table orphan result strict9", target: mistral,
			in:   `[{"role":"user","content":"hi"},{"role":"toolResult","toolCallId":"call_x","content":"late"}]`,
			want: `[{"role":"user","content":"hi"},{"role":"toolResult","toolCallId":"callxtool","content":"late"}]`},
		{name: "orphan before a native call leaves the call its id",
			in:   `[{"role":"toolResult","toolCallId":"toolu_01","content":"stale"},{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_01","content":"ok"}]`,
			want: `[{"role":"toolResult","toolCallId":"toolu01toolresult1","content":"stale"},{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_01","content":"ok"}]`},
		{name: "orphan with a valid id no call carries keeps it",
			in: `[{"role":"toolResult","toolCallId":"gone1","content":"stale"},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`},
		{name: "table two long ids strict",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"` + a50 + `","name":"read","arguments":{}},{"type":"toolCall","id":"` + a50 + `_","name":"read","arguments":{}}]}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"` + strings.Repeat("a", 40) + `","name":"read","arguments":{}},{"type":"toolCall","id":"` + strings.Repeat("a", 32) + `567d558e","name":"read","arguments":{}}]}]`},
		{name: "newer result id fields resolve once",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"a:1","name":"read","arguments":{}},{"type":"toolCall","id":"b:2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"a:1","toolUseId":"b:2","content":"x"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"a1","name":"read","arguments":{}},{"type":"toolCall","id":"b2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"a1","toolUseId":"a1","content":"x"}]`},
		{name: "result id priority call_id first and toolCallId added",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"a:1","name":"read","arguments":{}},{"type":"toolCall","id":"b:2","name":"read","arguments":{}}]},{"role":"toolResult","tool_use_id":"a:1","call_id":"b:2","content":"x"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"a1","name":"read","arguments":{}},{"type":"toolCall","id":"b2","name":"read","arguments":{}}]},{"role":"toolResult","tool_use_id":"b2","call_id":"b2","content":"x","toolCallId":"b2"}]`},
		{name: "OpenAI duplicate style", target: moonshot,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"call_abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc","content":"1"},{"role":"assistant","content":[{"type":"toolCall","id":"call_abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc","content":"2"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"call_abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc","content":"1"},{"role":"assistant","content":[{"type":"toolCall","id":"call_6d7b2c96a6bbd6317aa25280","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_6d7b2c96a6bbd6317aa25280","content":"2"}]`},
		{name: "April style without duplicate option", target: completions,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"call_abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc","content":"1"},{"role":"assistant","content":[{"type":"toolCall","id":"call_abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc","content":"2"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"callabc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"callabc","content":"1"},{"role":"assistant","content":[{"type":"toolCall","id":"callabc2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"callabc2","content":"2"}]`},
		{name: "Kimi native id kept where accepted", target: moonshot,
			in: `[{"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"functions.read:0","content":"ok"}]`},
		{name: "Kimi native id rewritten for the Anthropic pattern",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"functions.read:0","content":"ok"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"functionsread0","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"functionsread0","content":"ok"}]`},
		{name: "repeated provider id on a later turn keeps its own result",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"t:1","name":"read","arguments":{}}]},{"role":"user","content":"again"},{"role":"assistant","content":[{"type":"toolCall","id":"t:1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"t:1","content":"two"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{}}]},{"role":"user","content":"again"},{"role":"assistant","content":[{"type":"toolCall","id":"t12","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"t12","content":"two"}]`},
		{name: "displaced result follows its single candidate",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"x:1","name":"read","arguments":{}}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"y:1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"x:1","content":"X"},{"role":"toolResult","toolCallId":"y:1","content":"Y"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"x1","name":"read","arguments":{}}]},{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"toolCall","id":"y1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"x1","content":"X"},{"role":"toolResult","toolCallId":"y1","content":"Y"}]`},
		{name: "ambiguous displaced result becomes an orphan",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"assistant","content":[{"type":"toolCall","id":"c9","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"?"},{"role":"toolResult","toolCallId":"c9","content":"ok"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"assistant","content":[{"type":"toolCall","id":"c12","name":"read","arguments":{}}]},{"role":"assistant","content":[{"type":"toolCall","id":"c9","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1toolresult1","content":"?"},{"role":"toolResult","toolCallId":"c9","content":"ok"}]`},
		{name: "padded result id matches its call",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"c:1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"  c:1 ","content":"ok"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`},
		{name: "in-frame duplicate shares the first id",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"c:1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c:1","content":"first"},{"role":"toolResult","toolCallId":"c:1","content":"second"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"first"},{"role":"toolResult","toolCallId":"c1","content":"second"}]`},
		{name: "ids off: no-op for valid Responses ids", target: responses,
			in: `[{"role":"assistant","content":[{"type":"toolCall","id":"call_abc|fc_123","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc|fc_123","content":"ok"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, ToolCallIDs()) })
	}
}

// TestToolCallIDsLimits checks the ids OpenClaw would keep but the target
// rejects, and the limits-only rewrite of rows that do not sanitise ids.
func TestToolCallIDsLimits(t *testing.T) {
	longCall := "call_" + strings.Repeat("x", 60) // 65 characters: over the call_id limit
	long := longCall + "|fc_1"
	cases := []idCase{
		{name: "Responses: ids off, overlong call part rewritten, item kept", target: responses,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"` + long + `","name":"read","arguments":{}},{"type":"toolCall","id":"short|fc_2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"` + long + `","content":"a"},{"role":"toolResult","toolCallId":"short|fc_2","content":"b"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"call` + strings.Repeat("x", 60) + `|fc_1","name":"read","arguments":{}},{"type":"toolCall","id":"short|fc_2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call` + strings.Repeat("x", 60) + `|fc_1","content":"a"},{"role":"toolResult","toolCallId":"short|fc_2","content":"b"}]`},
		{name: "Responses: rewritten id kept apart from an existing id", target: responses,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"call` + strings.Repeat("x", 60) + `|fc_1","name":"read","arguments":{}},{"type":"toolCall","id":"` + long + `","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"` + long + `","content":"b"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"call` + strings.Repeat("x", 60) + `|fc_1","name":"read","arguments":{}},{"type":"toolCall","id":"call` + strings.Repeat("x", 52) + sha256Hex(longCall + ":fit:1")[:8] + `|fc_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call` + strings.Repeat("x", 52) + sha256Hex(longCall + ":fit:1")[:8] + `|fc_1","content":"b"}]`},
		{name: "Responses: real-world call and item ids are accepted as they are", target: responses,
			in: `[{"role":"assistant","content":[{"type":"toolCall","id":"call_` + strings.Repeat("A", 24) + `|fc_` + strings.Repeat("0", 48) + `","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_` + strings.Repeat("A", 24) + `|fc_` + strings.Repeat("0", 48) + `","content":"ok"}]`},
		{name: "Responses: a plain overlong id is fitted whole", target: responses,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"` + strings.Repeat("q", 65) + `","name":"read","arguments":{}}]}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"` + strings.Repeat("q", 64) + `","name":"read","arguments":{}}]}]`},
		{name: "Chat Completions passthrough: 41 characters rewritten", target: openrouter,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"` + strings.Repeat("b", 41) + `","name":"read","arguments":{}}]},{"role":"toolResult","tool_call_id":"` + strings.Repeat("b", 41) + `","content":"b"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"` + strings.Repeat("b", 40) + `","name":"read","arguments":{}}]},{"role":"toolResult","tool_call_id":"` + strings.Repeat("b", 40) + `","content":"b"}]`},
		{name: "Anthropic wire without id sanitising: Kimi id fitted", target: kimiAnthro,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":" functions.read:0","content":"ok"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"functionsread0","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"functionsread0","content":"ok"}]`},
		{name: "Anthropic wire without id sanitising: padded valid id trimmed", target: kimiAnthro,
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"abc ","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"abc","content":"ok"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"abc","content":"ok"}]`},
		{name: "signed turn with an id the pattern rejects is rewritten",
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_1|fc_1","content":"ok"}]`,
			want: `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"call1fc1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call1fc1","content":"ok"}]`},
		{name: "Bedrock signed turn with an overlong id is rewritten", target: bedrock,
			in:   `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"` + strings.Repeat("z", 65) + `","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"` + strings.Repeat("z", 65) + `","content":"ok"}]`,
			want: `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"` + strings.Repeat("z", 40) + `","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"` + strings.Repeat("z", 40) + `","content":"ok"}]`},
		{name: "Bedrock signed turn with an accepted id is kept", target: bedrock,
			in: `[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"tooluse_Ab-1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"tooluse_Ab-1","content":"ok"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, ToolCallIDs()) })
	}

	// A native toolu_ id longer than a limit (no table row combines native
	// ids with a length limit, so the policy is built by hand).
	p := policy.Resolve(anthropic)
	p.IDLimits = contract.IDLimits{MaxLen: 12, Pattern: `^[a-zA-Z0-9_-]+$`}
	got, _ := runPolicy(t, p, `[{"role":"assistant","content":[{"type":"toolCall","id":"toolu_0123456789","name":"read","arguments":{}},{"type":"toolCall","id":"toolu_01","name":"read","arguments":{}}]}]`, ToolCallIDs())
	stagetest.Equal(t, got, `[{"role":"assistant","content":[{"type":"toolCall","id":"toolu0123456","name":"read","arguments":{}},{"type":"toolCall","id":"toolu_01","name":"read","arguments":{}}]}]`)
}

// TestToolCallIDsPreservedSignedTurns covers the immutable signed-turn
// handling of §3.6 (the "Tests" named there and the newer allow-list rule).
func TestToolCallIDsPreservedSignedTurns(t *testing.T) {
	const think = `{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"}`
	cases := []idCase{
		{name: "rewrites earlier mutable ids away from later preserved signed ids",
			in:   `[{"role":"assistant","content":[{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","content":"a"},{"role":"user","content":"u"},{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","content":"b"}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"toolu1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu1","content":"a"},{"role":"user","content":"u"},{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","content":"b"}]`},
		{name: "rewrites later signed turns when an earlier signed turn already owns the raw id",
			in:   `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","content":"a"},{"role":"user","content":"u"},{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","content":"b"}]`,
			want: `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","content":"a"},{"role":"user","content":"u"},{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"toolu12","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu12","content":"b"}]`},
		{name: "signed call with a real result is checked without the allow-list", allowed: []string{"read"},
			in: `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call_9","name":"write","arguments":{}}]},{"role":"toolResult","toolCallId":"call_9","content":"done"}]`},
		{name: "signed call with only a synthetic result must be allowed", allowed: []string{"read"},
			in:   `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call_9","name":"write","arguments":{}}]},{"role":"toolResult","toolCallId":"call_9","isError":true,"details":{"openclawSyntheticMissingToolResult":true},"content":"x"}]`,
			want: `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call9","name":"write","arguments":{}}]},{"role":"toolResult","toolCallId":"call9","isError":true,"details":{"openclawSyntheticMissingToolResult":true},"content":"x"}]`},
		{name: "signed turn ignores partialJson",
			in: `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call_9","name":"read","arguments":{},"partialJson":"{"}]}]`},
		{name: "signed turn with a duplicate id in the turn is rewritten",
			in:   `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call_9","name":"read","arguments":{}},{"type":"toolCall","id":"call_9","name":"read","arguments":{}}]}]`,
			want: `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call9","name":"read","arguments":{}},{"type":"toolCall","id":"call92","name":"read","arguments":{}}]}]`},
		{name: "thinking turns are mutable for a target without immutable replay", target: google,
			in:   `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call_9","name":"read","arguments":{}}]}]`,
			want: `[{"role":"assistant","content":[` + think + `,{"type":"toolCall","id":"call9","name":"read","arguments":{}}]}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, ToolCallIDs()) })
	}
}

// TestToolCallIDsEarly checks when the image-pass run applies and that the
// later run changes nothing after it.
func TestToolCallIDsEarly(t *testing.T) {
	in := `[{"role":"toolResult","toolCallId":"zz:9","content":"orphan"},{"role":"assistant","content":[{"type":"toolCall","id":"t:1","name":"read","arguments":{}},{"type":"toolCall","id":"t:1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"t:1","content":"a"},{"role":"user","content":"u"},{"role":"assistant","content":[{"type":"toolCall","id":"t:1","name":"read","arguments":{}}]},{"role":"toolResult","call_id":"t:1","content":"b"}]`
	tests := []struct {
		target transcript.Target
		early  bool
	}{
		{google, true},
		{mistral, true},
		{completions, true},
		{moonshot, true},
		{anthropic, false}, // immutable signed replay
		{bedrock, false},
		{transcript.Target{Provider: "xai", API: "openai-responses", Model: "grok"}, false}, // Responses family
		{responses, false}, // ids off
	}
	for _, tt := range tests {
		t.Run(tt.target.String(), func(t *testing.T) {
			c := stagetest.Case{Target: tt.target}
			early := c.Apply(t, in, ToolCallIDsInImagePass())
			if ran := string(early.JSON) != in; ran != tt.early {
				t.Fatalf("early run changed the input = %v, want %v: %s", ran, tt.early, early.JSON)
			}
			both := c.Apply(t, in, ToolCallIDsInImagePass(), ToolCallIDs())
			late := c.Apply(t, in, ToolCallIDs())
			if string(both.JSON) != string(late.JSON) {
				t.Fatalf("early+late differs from late alone\nboth: %s\nlate: %s", both.JSON, late.JSON)
			}
			if tt.early && len(both.Report.Stages.Of(idsStage)) != 0 {
				t.Fatalf("late run changed the early output: %v", both.Report.Stages)
			}
			c.CheckProperties(t, []byte(in), ToolCallIDsInImagePass(), ToolCallIDs())
		})
	}
}

// FuzzToolCallIDs checks the stage properties over arbitrary histories, for
// a strict, a strict9, an immutable-replay, a duplicate-style and a
// limits-only target.
func FuzzToolCallIDs(f *testing.F) {
	for _, seed := range idSeeds {
		f.Add(seed)
	}
	targets := []transcript.Target{anthropic, mistral, google, moonshot, responses, bedrock, kimiAnthro, openrouter}
	f.Fuzz(func(t *testing.T, in string) {
		for _, target := range targets {
			stagetest.Case{Target: target, Settings: fuzzSettings}.CheckProperties(t, []byte(in), ToolCallIDsInImagePass(), ToolCallIDs())
		}
	})
}

// TestToolCallIDsUnsatisfiableLimits checks that limits no id can meet are an
// error that names the id, in both the sanitising and the limits-only pass.
func TestToolCallIDsUnsatisfiableLimits(t *testing.T) {
	in := `[{"role":"assistant","content":[{"type":"toolCall","id":"c:1","name":"read","arguments":{}}]}]`
	for _, target := range []transcript.Target{anthropic, responses} {
		p := policy.Resolve(target)
		p.IDLimits = contract.IDLimits{Pattern: `^_+$`}
		tr, err := transcript.FromMessages([]byte(in), transcript.Target(target))
		if err != nil {
			t.Fatal(err)
		}
		err = ToolCallIDs().Apply(context.Background(), tr, &stage.Env{Policy: p, Report: stage.NewReport()})
		if err == nil || !strings.Contains(err.Error(), `"c:1`) {
			t.Errorf("%s: error = %v, want one naming the id", target, err)
		}
	}
}
