package stages

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/stages/turns"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestEachRuleKeepsText runs every rule of the chain alone over generated
// damaged histories for every target: no rule loses a non-blank text of a
// user or assistant turn that its spec keeps. (The chain as a whole hides
// a rule's loss when an earlier rule already removed what it would have
// lost: issue 11's trap, where provider_turns replaced a merged text with
// the filler because a content read missed a block write, passed the chain
// tests because assistant_replay had dropped the blank turn first.)
func TestEachRuleKeepsText(t *testing.T) {
	// The rules whose spec removes or replaces text of a user or assistant
	// turn, and why.
	drops := map[string]string{}
	d := sessiongen.Heavy()
	d.BlankStringTurn = 0.3
	forGenerated(t, 1100, sessiongen.Config{Damage: d}, func(t *testing.T, tg transcript.Target, input []byte) {
		texts := turnTexts(t, tg, input)
		for _, st := range Default(imgs) {
			if _, ok := drops[st.Name]; ok {
				continue
			}
			out := applyAlone(t, tg, input, st)
			for _, text := range texts {
				if !bytes.Contains(out, text) {
					t.Fatalf("%s alone lost the text %s\ninput  %s\noutput %s", st.Name, text, input, out)
				}
			}
		}
	})
}

// turnTexts returns the non-blank texts that the spec keeps in every rule:
// those of the user turns and of the assistant turns that did not fail
// (§3.2 and §3.7 drop a failed turn's content) and hold no thinking (§3.5
// and §3.12.2 drop a signed turn whole rather than edit it), string
// contents and text blocks, but for the silent-reply token (§3.2 drops it),
// each as the body of its JSON string, as it appears in an encoding.
func turnTexts(t *testing.T, tg transcript.Target, messages []byte) [][]byte {
	t.Helper()
	tr, err := transcript.FromMessages(messages, transcript.Target(tg))
	if err != nil {
		t.Fatal(err)
	}
	var texts [][]byte
	add := func(s string) {
		if !transcript.IsBlank(s) && strings.TrimSpace(s) != silentReply {
			enc := transcript.JSONString(s)
			texts = append(texts, enc[1:len(enc)-1])
		}
	}
	for _, m := range tr.Messages {
		switch stop, _ := m.String("stopReason"); {
		case m.Role() == transcript.RoleAssistant && (stop == "error" || stop == "aborted"):
			continue
		case m.Role() == transcript.RoleAssistant && holdsThinking(m):
			continue
		case m.Role() != transcript.RoleUser && m.Role() != transcript.RoleAssistant:
			continue
		}
		if s, ok := m.ContentString(); ok {
			add(s)
		}
		blocks, _ := m.Blocks()
		for _, b := range blocks {
			if b.Type() == "text" {
				if s, ok := b.Text(); ok {
					add(s)
				}
			}
		}
	}
	return texts
}

// silentReply is the token of an assistant turn that chose not to answer.
const silentReply = "NO_REPLY"

// holdsThinking reports whether an assistant turn has a thinking block.
func holdsThinking(m *transcript.Message) bool {
	blocks, _ := m.Blocks()
	for _, b := range blocks {
		if t := b.Type(); t == "thinking" || t == "redacted_thinking" {
			return true
		}
	}
	return false
}

// applyAlone runs one stage over a message array with the settings of the
// chain tests and returns the output array; a Reject returns the input (the
// job is refused whole, nothing is lost silently).
func applyAlone(t *testing.T, tg transcript.Target, messages []byte, st stage.Stage) []byte {
	t.Helper()
	tr, err := transcript.FromMessages(messages, transcript.Target(tg))
	if err != nil {
		t.Fatal(err)
	}
	env := chainEnv(tr)
	env.Policy = policy.Resolve(tg)
	env.ModelChanged = turns.ModelChanged(tr.CustomEntries, env.Policy)
	err = st.Apply(context.Background(), tr, env)
	if _, ok := errors.AsType[*stage.Reject](err); ok {
		return messages
	}
	if err != nil {
		t.Fatalf("stage %s: %v", st.Name, err)
	}
	return tr.MessagesJSON()
}
