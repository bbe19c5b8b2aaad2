package toolcalls

import (
	"context"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// inputsKeptFor reads in with the input check of target's policy and the
// allow-list allowed.
func inputsKeptFor(t testing.TB, target transcript.Target, allowed []string, in string) bool {
	t.Helper()
	tr, err := transcript.FromMessages([]byte(in), target)
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	c := newInputsCheck(policy.Resolve(target), allowed)
	for _, m := range tr.Messages {
		c.add(m)
	}
	return c.kept()
}

// checkInputsKeptIsAFixedPoint checks what the input check promises of in:
// where it holds, the validation itself, reading every call, changes and
// counts nothing.
func checkInputsKeptIsAFixedPoint(t *testing.T, target transcript.Target, allowed []string, in string) bool {
	t.Helper()
	if !inputsKeptFor(t, target, allowed, in) {
		return false
	}
	tr, err := transcript.FromMessages([]byte(in), target)
	if err != nil {
		t.Fatal(err)
	}
	before := string(tr.MessagesJSON())
	env := &stage.Env{Policy: policy.Resolve(target), Report: stage.NewReport()}
	env.Settings.Request.AllowedToolNames = allowed
	if err := ToolCallInputs().Apply(context.Background(), tr, env); err != nil {
		t.Fatal(err)
	}
	if got := string(tr.MessagesJSON()); got != before || env.Report.Stages.Len() != 0 {
		t.Fatalf("%s: the check kept the inputs, the validation changed them (report %v)\nin:  %s\nout: %s", target, env.Report.Stages, in, got)
	}
	return true
}

func TestInputsCheck(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      string
		allowed []string
		kept    bool
	}{
		{"a plain call", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}]`, nil, true},
		{"no calls", `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]`, nil, true},
		{"allowed", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"Read","arguments":{}}]}]`, []string{"read"}, true},
		{"not allowed", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"exec","arguments":{}}]}]`, []string{"read"}, false},
		{"no input", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read"}]}]`, nil, false},
		{"null arguments", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":null}]}]`, nil, false},
		{"a blank id", `[{"role":"assistant","content":[{"type":"toolCall","id":" ","name":"read","arguments":{}}]}]`, nil, false},
		{"a padded name", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":" read","arguments":{}}]}]`, nil, false},
		{"an invalid name", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bad name","arguments":{}}]}]`, nil, false},
		{"partialJson", `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{},"partialJson":"{}"}]}]`, nil, false},
		{"a snake-case call", `[{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"read"}]}]`, nil, false},
		{"a null entry", `[null,{"role":"user","content":"hi"}]`, nil, false},
	} {
		if got := inputsKeptFor(t, anthropic, c.allowed, c.in); got != c.kept {
			t.Errorf("%s: kept %v, want %v", c.name, got, c.kept)
		}
		checkInputsKeptIsAFixedPoint(t, anthropic, c.allowed, c.in)
	}
}

// The check answers for the validation over its seeds, the id seeds, and
// realistic sessions of every API, and keeps those of every target whose
// early id pass reads it (not the Responses family, whose finished calls
// keep their partialJson for the validation to judge, nor a target that
// replays signed turns): there the id proof's read spares the validation
// its own.
func TestInputsCheckIsAFixedPoint(t *testing.T) {
	for _, in := range append(append([]string{}, inputSeeds...), idSeeds...) {
		checkInputsKeptIsAFixedPoint(t, anthropic, nil, in)
		checkInputsKeptIsAFixedPoint(t, anthropic, fuzzSettings.Request.AllowedToolNames, in)
	}
	for _, target := range sessiongen.RealAPIs {
		for seed := range uint64(3) {
			in := string(sessiongen.RealShapes(sessiongen.RealConfig{Seed: 3400 + seed, Target: target, Turns: 4 + int(seed)}).History())
			p := policy.Resolve(target)
			if !checkInputsKeptIsAFixedPoint(t, target, nil, in) && !p.AllowProviderOwnedThinkingReplay() && !p.IsResponsesAPI() {
				t.Errorf("%s seed %d: a realistic session's inputs are not proved kept", target, seed)
			}
		}
	}
}

// FuzzInputsCheck checks, on any history, that where the input check holds
// the validation changes nothing.
func FuzzInputsCheck(f *testing.F) {
	for _, s := range append(append([]string{}, inputSeeds...), idSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := transcript.FromMessages(data, anthropic); err != nil {
			return
		}
		checkInputsKeptIsAFixedPoint(t, anthropic, fuzzSettings.Request.AllowedToolNames, string(data))
	})
}
