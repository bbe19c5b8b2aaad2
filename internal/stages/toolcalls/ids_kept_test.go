package toolcalls

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// keptFor runs keepsEveryID over history in, for target's policy and the
// allow-list allowed.
func keptFor(t testing.TB, target transcript.Target, allowed []string, in string) bool {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(in), target)
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	p := policy.Resolve(target)
	env := &stage.Env{Policy: p, Report: stage.NewReport(), Settings: stage.Settings{Request: settings.Request{AllowedToolNames: allowed}}}
	kept, err := newCollector(env, p.AllowProviderOwnedThinkingReplay()).keepsEveryID(context.Background(), tr.Messages, new(sameRead))
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

// bedrockUseID is a Bedrock Converse toolUseId: "tooluse_" and 22
// characters of base64url.
const bedrockUseID = "tooluse_kZJMlvQmRJ6eAyJE5GIl_Q"

// keptSignedTurn is keptTurn with a signed thinking block first.
func keptSignedTurn(calls, results []string) string {
	return strings.Replace(keptTurn(calls, results), `"content":[`, `"content":[{"type":"thinking","thinking":"Reading the file.","thinkingSignature":"EpMCCkYIBxgCKkDx7TtXb3Jh0pQKqWm2ZlV9yGgQ"},`, 1)
}

// keptHistory joins the messages into an array, a user turn first.
func keptHistory(msgs ...string) string {
	return `[{"role":"user","content":"go"},` + strings.Join(msgs, ",") + `]`
}

// keptCases are keepsEveryID's table: each clause of its doc, held and
// failed.
var keptCases = []struct {
	name    string
	target  transcript.Target
	in      string
	want    bool
	allowed []string
}{
	{"strict ids, each answered in its frame", completions, keptHistory(keptTurn([]string{chatStrict, chatStrict2}, []string{chatStrict2, chatStrict})), true, nil},
	{"calls and results without ids are not sites", completions, keptHistory(`{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{}}]}`,
		`{"role":"toolResult","toolName":"read","content":[]}`, keptTurn([]string{chatStrict}, []string{chatStrict})), true, nil},
	{"no calls", completions, keptHistory(`{"role":"assistant","content":[{"type":"text","text":"hi"}]}`), true, nil},
	{"a call without its result", completions, keptHistory(keptTurn([]string{chatStrict}, nil)), true, nil},
	{"a call_ id in strict mode", completions, keptHistory(keptTurn([]string{chatCallID}, []string{chatCallID})), false, nil},
	{"a call_ id with the OpenAI duplicate style", moonshot, keptHistory(keptTurn([]string{chatCallID}, []string{chatCallID})), true, nil},
	{"a toolu_ id, native ids kept", anthropic, keptHistory(keptTurn([]string{toolUseID}, []string{toolUseID})), true, nil},
	{"a toolu_ id, native ids not kept", bedrock, keptHistory(keptTurn([]string{toolUseID}, []string{toolUseID})), false, nil},
	{"a Bedrock signed turn keeps its ids", bedrock, keptHistory(keptSignedTurn([]string{bedrockUseID, chatStrict}, []string{bedrockUseID, chatStrict})), true, nil},
	{"a Bedrock signed turn, its names allowed", bedrock, keptHistory(keptSignedTurn([]string{bedrockUseID}, []string{bedrockUseID})), true, []string{"read"}},
	{"a Bedrock signed turn, a name not allowed", bedrock, keptHistory(keptSignedTurn([]string{bedrockUseID}, []string{bedrockUseID})), false, []string{"exec"}},
	{"a Bedrock signed turn repeating an id", bedrock, keptHistory(keptSignedTurn([]string{bedrockUseID}, []string{bedrockUseID}), keptSignedTurn([]string{bedrockUseID}, nil)), false, nil},
	{"a Bedrock signed turn, an id to trim", bedrock, keptHistory(keptSignedTurn([]string{bedrockUseID + " "}, []string{bedrockUseID})), false, nil},
	{"a signed turn, thinking not replayed", completions, keptHistory(keptSignedTurn([]string{chatCallID}, []string{chatCallID})), false, nil},
	{"an id to trim", completions, keptHistory(keptTurn([]string{" " + chatStrict}, []string{chatStrict})), false, nil},
	{"an id longer than strict mode's 40", completions, keptHistory(keptTurn([]string{strings.Repeat("a", 41)}, []string{strings.Repeat("a", 41)})), false, nil},
	{"strict9 wants nine characters", mistral, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict})), false, nil},
	{"strict9 ids", mistral, keptHistory(keptTurn([]string{"abcdefghi"}, []string{"abcdefghi"})), true, nil},
	{"a call id repeated in a later turn", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict}), keptTurn([]string{chatStrict}, []string{chatStrict})), false, nil},
	{"a call id repeated in its turn", completions, keptHistory(keptTurn([]string{chatStrict, chatStrict}, nil)), false, nil},
	{"an orphan result of an id of the mode", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict2})), true, nil},
	{"an orphan result of an id not of the mode", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatCallID})), false, nil},
	{"an orphan toolu_ result, native ids kept", anthropic, keptHistory(keptTurn([]string{chatStrict}, []string{toolUseID})), true, nil},
	{"two orphan results of one id", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict2}), keptTurn(nil, []string{chatStrict2})), false, nil},
	{"an orphan result whose id a later call carries", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict2}), keptTurn([]string{chatStrict2}, nil)), false, nil},
	{"a result before its call", completions, keptHistory(keptTurn(nil, []string{chatStrict}), keptTurn([]string{chatStrict}, nil)), false, nil},
	{"a result in a later frame, its call unanswered", completions, keptHistory(keptTurn([]string{chatStrict}, nil), keptTurn([]string{chatStrict2}, []string{chatStrict2, chatStrict})), true, nil},
	{"a result in a later frame, its call answered", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict}), keptTurn([]string{chatStrict2}, []string{chatStrict2, chatStrict})), false, nil},
	// the resolver keeps this one's id too; the proof does not read
	// which results are synthetic
	{"a real result in a later frame, its call answered by a synthetic one", completions,
		keptHistory(keptTurn([]string{chatStrict}, nil), missingResult(chatStrict), keptTurn([]string{chatStrict2}, []string{chatStrict2, chatStrict})), false, nil},
	{"a synthetic result in a later frame, its call answered by a synthetic one", completions,
		keptHistory(keptTurn([]string{chatStrict}, nil), missingResult(chatStrict), keptTurn([]string{chatStrict2}, []string{chatStrict2}), missingResult(chatStrict)), false, nil},
	{"a second result of a call in its frame", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict, chatStrict})), true, nil},
	{"a synthetic and a real result in its frame", completions, keptHistory(keptTurn([]string{chatStrict}, nil), missingResult(chatStrict), keptTurn(nil, []string{chatStrict})), true, nil},
	{"a result id to trim", completions, keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict + " "})), false, nil},
	{"a result with another id member", completions, keptHistory(keptTurn([]string{chatStrict}, nil),
		fmt.Sprintf(`{"role":"toolResult","toolCallId":%q,"tool_call_id":%q,"content":[]}`, chatStrict, chatStrict)), false, nil},
	{"a result with only another id member", completions, keptHistory(keptTurn([]string{chatStrict}, nil),
		fmt.Sprintf(`{"role":"toolResult","tool_use_id":%q,"content":[]}`, chatStrict)), false, nil},
}

// keepsEveryID holds exactly where its doc says: each clause that fails
// answers false.
func TestKeepsEveryID(t *testing.T) {
	for _, c := range keptCases {
		t.Run(c.name, func(t *testing.T) {
			if got := keptFor(t, c.target, c.allowed, c.in); got != c.want {
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
	kept, err := col.keepsEveryID(context.Background(), tr.Messages, new(sameRead))
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
// ids, one that keeps signed turns' ids without them (Bedrock), a strict
// one with the OpenAI duplicate style, a strict9 one and one that replays
// signed turns, all with an allow-list.
func FuzzKeepsEveryID(f *testing.F) {
	for _, seed := range idSeeds {
		f.Add(seed)
	}
	for _, c := range keptCases {
		f.Add(c.in)
	}
	targets := []transcript.Target{anthropic, bedrock, moonshot, mistral, google, kimiAnthro}
	f.Fuzz(func(t *testing.T, in string) {
		for _, target := range targets {
			checkKeptIsFixedPoint(t, target, fuzzSettings, []byte(in))
		}
	})
}

// The realistic generator's sessions, once the pass has run, are proved
// kept for every API that sanitises ids: a clean history replayed to its
// own provider reads its ids once (Bedrock's through its replay-safe
// signed turns).
func TestRealSessionsProvedKept(t *testing.T) {
	for _, target := range sessiongen.RealAPIs {
		p := policy.Resolve(target)
		if !p.SanitizeToolCallIDs {
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

// A signed turn's ids are kept as written, so the proof wants them exact
// too: under limits that accept a padded id (no table row has such limits
// and replays signed turns, so the policy is built by hand), the pass
// gives the result of " abc1" that id, and the proof must not hold.
func TestKeptSignedTurnNeedsExactIDs(t *testing.T) {
	p := policy.Resolve(bedrock)
	p.IDLimits = contract.IDLimits{}
	in := keptHistory(keptSignedTurn([]string{" abc1"}, []string{"abc1"}))
	tr, err := transcript.FromMessages([]byte(in), bedrock)
	if err != nil {
		t.Fatal(err)
	}
	env := &stage.Env{Policy: p, Report: stage.NewReport()}
	if kept, err := newCollector(env, true).keepsEveryID(context.Background(), tr.Messages, new(sameRead)); err != nil || kept {
		t.Fatalf("keepsEveryID = %v, %v over a padded signed id", kept, err)
	}
	if _, rep := runPolicy(t, p, in, ToolCallIDs()); rep.Stages.Len() == 0 {
		t.Fatal("the pass kept the result's id: the case no longer shows why the proof wants exact ids")
	}
}

// The proof's table goes back to the pool cleared: a history proved after
// another answers as it does alone (here an orphan result whose id was a
// call's in the history before), and what waits in the pool holds no id.
func TestCallTableReusedClean(t *testing.T) {
	before := keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict}))
	after := keptHistory(keptTurn(nil, []string{chatStrict}))
	alone := keptFor(t, completions, nil, after)
	if !alone {
		t.Fatal("an orphan result of an id of the mode is not proved kept")
	}
	keptFor(t, completions, nil, before)
	if got := keptFor(t, completions, nil, after); got != alone {
		t.Fatalf("after another history the proof answers %v, alone %v", got, alone)
	}
	keptFor(t, completions, nil, before)
	if tab, ok := tablePool.Get().(*callTable); ok {
		if len(tab.ids) != 0 {
			t.Fatalf("a pooled table holds %d ids", len(tab.ids))
		}
	} else if !raceBuild {
		t.Fatal("the proof gave no table back to the pool")
	}
}

// The early run's id proof, which the input validation and pairing follow,
// reads the pairing and the calls' inputs of the history it keeps in the
// same read (stage.Env.ResultsPaired, stage.Env.InputsKept):
// paired where the repair would give it back as it is, exact where every
// result carries its call's id as written, inputs kept where the
// validation would; neither where the ids are rewritten.
func TestIDProofReadsPairingAndInputs(t *testing.T) {
	for _, c := range []struct {
		name                  string
		in                    string
		proved, exact, inputs bool
	}{
		{"answered at once", keptHistory(keptTurn([]string{chatStrict}, []string{chatStrict}), `{"role":"user","content":"next"}`), true, true, true},
		{"a result after a user turn", keptHistory(keptTurn([]string{chatStrict}, nil), `{"role":"user","content":"wait"}`,
			`{"role":"toolResult","toolCallId":"`+chatStrict+`","toolName":"read","content":[{"type":"text","text":"ok"}],"isError":false}`), false, false, true},
		{"a padded name", keptHistory(strings.Replace(keptTurn([]string{chatStrict}, []string{chatStrict}), `"name":"read"`, `"name":" read"`, 1)), true, true, false},
		{"an id to rewrite", keptHistory(keptTurn([]string{chatCallID}, []string{chatCallID})), false, false, false},
	} {
		tr, err := transcript.FromMessages([]byte(c.in), completions)
		if err != nil {
			t.Fatal(err)
		}
		env := &stage.Env{Policy: policy.Resolve(completions), Report: stage.NewReport()}
		if err := stage.Run(context.Background(), []stage.Stage{ToolCallIDsInImagePass()}, tr, env); err != nil {
			t.Fatal(err)
		}
		v, proved := env.Unedited(env.ResultsPaired)
		if proved != c.proved || proved && (v == 1) != c.exact {
			t.Errorf("%s: ResultsPaired %v (value %d), want %v, exact %v", c.name, proved, v, c.proved, c.exact)
		}
		if _, inputs := env.Unedited(env.InputsKept); inputs != c.inputs {
			t.Errorf("%s: InputsKept %v, want %v", c.name, inputs, c.inputs)
		}
	}
}
