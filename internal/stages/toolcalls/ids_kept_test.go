package toolcalls

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// keptFor runs keepsEveryID over history in, for target's policy.
func keptFor(t testing.TB, target transcript.Target, in string) bool {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(in), target)
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	p := policy.Resolve(target)
	env := &stage.Env{Policy: p, Report: stage.NewReport()}
	kept, err := newCollector(env, p.AllowProviderOwnedThinkingReplay()).keepsEveryID(context.Background(), tr.Messages)
	if err != nil {
		t.Fatal(err)
	}
	return kept
}

// Ids of the shapes docs/real-shapes.md records: a Chat Completions call_
// id (24 alphanumerics after "call_"), the strict form of two such ids.
const (
	chatCallID  = "call_Kx7pQ2mZ9vR4tY8wB3nL6sJd"
	chatStrict  = "callKx7pQ2mZ9vR4tY8wB3nL6sJd"
	chatStrict2 = "callPmpuo6gpyFEYn2keKLeeqpCv"
)

// keptTurn is an assistant with calls of the given ids, then a result for each
// of results.
func keptTurn(calls, results []string) string {
	var parts []string
	var blocks []string
	for _, id := range calls {
		blocks = append(blocks, fmt.Sprintf(`{"type":"toolCall","id":%q,"name":"read","arguments":{"path":"a.go"}}`, id))
	}
	parts = append(parts, `{"role":"assistant","content":[`+strings.Join(blocks, ",")+`],"stopReason":"toolUse"}`)
	for _, id := range results {
		parts = append(parts, fmt.Sprintf(`{"role":"toolResult","toolCallId":%q,"toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}`, id))
	}
	return strings.Join(parts, ",")
}

// missingResult is the result pairing repair writes for a call that has
// none (isError, and the synthetic marker in details).
func missingResult(id string) string {
	return fmt.Sprintf(`{"role":"toolResult","toolCallId":%q,"toolName":"read","content":[{"type":"text","text":"missing"}],"details":{"openclawSyntheticMissingToolResult":true},"isError":true}`, id)
}

// keptHistory joins the messages into an array, a user turn first.
func keptHistory(msgs ...string) string {
	return `[{"role":"user","content":"go"},` + strings.Join(msgs, ",") + `]`
}

// keptCases are keepsEveryID's table: each clause of its doc, held and
// failed.
var keptCases = []struct {
	name   string
	target transcript.Target
	in     string
	want   bool
}{
	{"strict ids, each answered in its frame", completions, keptHistory(keptTurn([]string{chatStrict, chatStrict2}, []string{chatStrict2, chatStrict})), true},
	{"calls and results without ids are not sites", completions, keptHistory(`{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{}}]}`,
		`{"role":"toolResult","toolName":"read","content":[]}`, keptTurn([]string{chatStrict}, []string{chatStrict})), true},
	{"no calls", completions, keptHistory(`{"role":"assistant","content":[{"type":"text","text":"hi"}]}`), true},
	{"a call without its result", completions, keptHistory(keptTurn([]string{chatStrict}, nil)), true},
	{"a call_ id in strict mode", completions, keptHistory(keptTurn([]string{chatCallID}, []string{chatCallID})), false},
	{"a call_ id with the OpenAI duplicate style", moonshot, keptHistory(keptTurn([]string{chatCallID}, []string{chatCallID})), true},
	{"a toolu_ id, native ids kept", anthropic, keptHistory(keptTurn([]string{toolUseID}, []string{toolUseID})), true},
	{"a toolu_ id, native ids not kept", bedrock, keptHistory(keptTurn([]string{toolUseID}, []string{toolUseID})), false},
	{"an id to trim", completions, keptHistory(keptTurn([]string{" " + chatStrict}, []string{chatStrict})), false},
	{"an id longer than strict mode's 40", completions, keptHistory(keptTurn([]string{strings.Repeat("a", 41)}, []string{strings.Repeat("a", 41)})), false},
	{"strict9 wants nine characters", mistral, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict})), false},
	{"strict9 ids", mistral, keptHistory(keptTurn([]string{"abcdefghi"}, []string{"abcdefghi"})), true},
	{"a call id repeated in a later turn", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict}), keptTurn([]string{chatStrict}, []string{chatStrict})), false},
	{"a call id repeated in its turn", completions, keptHistory(keptTurn([]string{chatStrict, chatStrict}, nil)), false},
	{"an orphan result of an id of the mode", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict2})), true},
	{"an orphan result of an id not of the mode", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatCallID})), false},
	{"an orphan toolu_ result, native ids kept", anthropic, keptHistory(keptTurn([]string{chatStrict}, []string{toolUseID})), true},
	{"two orphan results of one id", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict2}), keptTurn(nil, []string{chatStrict2})), false},
	{"an orphan result whose id a later call carries", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict2}), keptTurn([]string{chatStrict2}, nil)), false},
	{"a result before its call", completions, keptHistory(keptTurn(nil, []string{chatStrict}), keptTurn([]string{chatStrict}, nil)), false},
	{"a result in a later frame, its call unanswered", completions, keptHistory(keptTurn([]string{chatStrict}, nil), keptTurn([]string{chatStrict2}, []string{chatStrict2, chatStrict})), true},
	{"a result in a later frame, its call answered", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict}), keptTurn([]string{chatStrict2}, []string{chatStrict2, chatStrict})), false},
	// the resolver keeps this one's id too; the proof does not read
	// which results are synthetic
	{"a real result in a later frame, its call answered by a synthetic one", completions,
		keptHistory(keptTurn([]string{chatStrict}, nil), missingResult(chatStrict), keptTurn([]string{chatStrict2}, []string{chatStrict2, chatStrict})), false},
	{"a synthetic result in a later frame, its call answered by a synthetic one", completions,
		keptHistory(keptTurn([]string{chatStrict}, nil), missingResult(chatStrict), keptTurn([]string{chatStrict2}, []string{chatStrict2}), missingResult(chatStrict)), false},
	{"a second result of a call in its frame", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict, chatStrict})), true},
	{"a synthetic and a real result in its frame", completions, keptHistory(keptTurn([]string{chatStrict}, nil), missingResult(chatStrict), keptTurn(nil, []string{chatStrict})), true},
	{"a result id to trim", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict + " "})), false},
	{"a result with another id member", completions, keptHistory(keptTurn([]string{chatStrict}, nil),
		fmt.Sprintf(`{"role":"toolResult","toolCallId":%q,"tool_call_id":%q,"content":[]}`, chatStrict, chatStrict)), false},
	{"a result with only another id member", completions, keptHistory(keptTurn([]string{chatStrict}, nil),
		fmt.Sprintf(`{"role":"toolResult","tool_use_id":%q,"content":[]}`, chatStrict)), false},
}

// keepsEveryID holds exactly where its doc says: each clause that fails
// answers false.
func TestKeepsEveryID(t *testing.T) {
	for _, c := range keptCases {
		t.Run(c.name, func(t *testing.T) {
			if got := keptFor(t, c.target, c.in); got != c.want {
				t.Fatalf("keepsEveryID = %v, want %v\n%s", got, c.want, c.in)
			}
		})
	}
}

// checkKeptIsFixedPoint runs keepsEveryID over in for target and, when it
// answers true, the pass's phases without it (rewriteIDs): they must edit
// nothing and count nothing. It reports keepsEveryID's answer.
func checkKeptIsFixedPoint(t *testing.T, target transcript.Target, settings stage.Settings, in []byte) bool {
	t.Helper()
	tr, err := transcript.FromMessages(in, target)
	if err != nil {
		return false
	}
	p := policy.Resolve(target)
	if !p.SanitizeToolCallIDs || p.ToolCallIDMode == policy.IDModeNone {
		return false
	}
	env := &stage.Env{Policy: p, Report: stage.NewReport(), Settings: settings}
	col := newCollector(env, p.AllowProviderOwnedThinkingReplay())
	kept, err := col.keepsEveryID(context.Background(), tr.Messages)
	if err != nil || !kept {
		return false
	}
	before := string(tr.MessagesJSON())
	if err := col.rewriteIDs(context.Background(), tr, env, idsStage); err != nil {
		t.Fatalf("%s: keepsEveryID said kept, the pass failed: %v\n%s", target, err, in)
	}
	if after := string(tr.MessagesJSON()); after != before || env.Report.Stages.Len() != 0 {
		t.Fatalf("%s: keepsEveryID said kept, the pass rewrote %v\n in: %s\nout: %s", target, env.Report.Stages, before, after)
	}
	return true
}

// Every history keepsEveryID proves kept is one the pass leaves as it is,
// over the random id histories and the pass's own output of them for every
// sanitising target, and over the realistic generator's sessions and their
// output. The proof must also be taken: on the pass's output of the bench
// history (what a clean history looks like to the pass) for every target,
// and on some of the rest.
func TestKeptIDsAreAFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261204, 7))
	runs := 40
	if testing.Short() {
		runs = 12
	}
	for _, target := range propertyTargets {
		p := policy.Resolve(target)
		if !p.SanitizeToolCallIDs || p.ToolCallIDMode == policy.IDModeNone {
			continue
		}
		t.Run(target.String(), func(t *testing.T) {
			c := stagetest.Case{Target: target}
			kept := 0
			try := func(in []byte) {
				if checkKeptIsFixedPoint(t, target, stage.Settings{}, in) {
					kept++
				}
				out := c.Apply(t, string(in), ToolCallIDsInImagePass(), ToolCallIDs()).JSON
				if checkKeptIsFixedPoint(t, target, stage.Settings{}, out) {
					kept++
				}
			}
			for range runs {
				try([]byte(genHistory(rng, 4+rng.IntN(40))))
			}
			for seed := range uint64(4) {
				try(sessiongen.RealShapes(sessiongen.RealConfig{Seed: 3100 + seed, Target: target, Turns: 4 + int(seed),
					Foreign: seed%2 == 0, StandIns: seed%3 == 0, ExtraRoles: seed%2 == 1}).History())
			}
			clean := c.Apply(t, string(benchHistory(300)), ToolCallIDs()).JSON
			if !checkKeptIsFixedPoint(t, target, stage.Settings{}, clean) {
				t.Fatalf("the pass's own output of the bench history is not proved kept: %.400s", clean)
			}
			t.Logf("%d of %d histories proved kept", kept+1, 2*(runs+4)+1)
		})
	}
}

// FuzzKeepsEveryID checks over arbitrary histories that what keepsEveryID
// proves kept, the pass leaves as it is, for a strict target with native
// ids, a strict one with the OpenAI duplicate style, a strict9 one and one
// that replays signed turns with an allow-list.
func FuzzKeepsEveryID(f *testing.F) {
	for _, seed := range idSeeds {
		f.Add(seed)
	}
	for _, c := range keptCases {
		f.Add(c.in)
	}
	targets := []transcript.Target{anthropic, moonshot, mistral, google, kimiAnthro}
	f.Fuzz(func(t *testing.T, in string) {
		for _, target := range targets {
			checkKeptIsFixedPoint(t, target, fuzzSettings, []byte(in))
		}
	})
}

// The realistic generator's sessions, once the pass has run, are proved
// kept for every API whose calls keep ids of the mode or native ones: a
// clean history replayed to its own provider reads its ids once. (Bedrock
// is not among them: its signed turns keep toolu_ ids only as replay-safe
// turns, which the proof does not look for, and the pass runs.)
func TestRealSessionsProvedKept(t *testing.T) {
	for _, target := range sessiongen.RealAPIs {
		p := policy.Resolve(target)
		if !p.SanitizeToolCallIDs || p.API == "bedrock-converse-stream" {
			continue
		}
		for seed := range uint64(4) {
			in := sessiongen.RealShapes(sessiongen.RealConfig{Seed: 3200 + seed, Target: target, Turns: 4 + int(seed), ExtraRoles: seed%2 == 1}).History()
			out := stagetest.Case{Target: target}.Apply(t, string(in), ToolCallIDsInImagePass(), ToolCallIDs()).JSON
			if !checkKeptIsFixedPoint(t, target, stage.Settings{}, out) {
				t.Errorf("%s seed %d: the pass's output is not proved kept", target, seed)
			}
		}
	}
}
