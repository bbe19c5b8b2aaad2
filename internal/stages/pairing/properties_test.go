package pairing

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// propertySeeds is how many damaged histories each property test runs.
const propertySeeds = 400

func TestPairingProperties(t *testing.T) {
	c := stagetest.Case{Target: stagetest.Anthropic}
	for seed := uint64(1); seed <= propertySeeds; seed++ {
		in := damagedHistory(seed, 3+int(seed%50))
		c.CheckProperties(t, []byte(in), ToolResultPairing())
		res := c.Apply(t, in, ToolResultPairing())
		if err := adjacencyViolation(res.Transcript.Messages); err != "" {
			t.Fatalf("seed %d: %s\n in: %s\nout: %s", seed, err, in, res.JSON)
		}
		if err := realResultsKept(t, in, res.Transcript.Messages); err != "" {
			t.Fatalf("seed %d: %s\n in: %s\nout: %s", seed, err, in, res.JSON)
		}
		made := 0
		for _, m := range res.Transcript.Messages {
			if m.Role() == transcript.RoleToolResult && !m.Has("seq") {
				made++
			}
		}
		if got := res.Report.Stages.Get(ToolResultPairingName, "synthetic"); got != made {
			t.Fatalf("seed %d: report says %d synthetic results, output has %d new ones", seed, got, made)
		}
	}
}

func TestResponsesChainProperties(t *testing.T) {
	c := stagetest.Case{Target: openAIResponses}
	for seed := uint64(1); seed <= propertySeeds; seed++ {
		in := damagedHistory(seed, 3+int(seed%50))
		c.CheckProperties(t, []byte(in), responsesChain()...)
		res := c.Apply(t, in, responsesChain()...) // fails the test on an invariant error
		out := res.Transcript.Messages
		if err := adjacencyViolation(out); err != "" {
			t.Fatalf("seed %d: %s\nout: %s", seed, err, res.JSON)
		}
		calls := map[string]bool{}
		for _, m := range out {
			for _, b := range m.ToolCalls() {
				id, _ := b.CallID()
				call, _, _ := strings.Cut(id, "|")
				if !validIDPart(call) || calls[call] {
					t.Fatalf("seed %d: call_id %q is invalid or repeated\nout: %s", seed, call, res.JSON)
				}
				calls[call] = true
			}
		}
	}
}

// adjacencyViolation checks the provider facts on an output: every
// assistant with calls is followed at once by one result per call in call
// order, no toolResult stands anywhere else, and no failed turn with calls
// is left (drop policy).
func adjacencyViolation(out []*transcript.Message) string {
	for i := 0; i < len(out); i++ {
		m := out[i]
		if m.Role() == transcript.RoleToolResult {
			return "a toolResult without its call at index " + itoa(i)
		}
		if m.Role() != transcript.RoleAssistant {
			continue
		}
		calls := m.ToolCalls()
		if len(calls) == 0 {
			continue
		}
		if sr := m.StopReason(); sr == transcript.StopError || sr == transcript.StopAborted {
			return "a failed turn kept at index " + itoa(i)
		}
		for j, b := range calls {
			k := i + 1 + j
			if k >= len(out) || out[k].Role() != transcript.RoleToolResult {
				return "call " + itoa(j) + " of the turn at index " + itoa(i) + " has no result right after it"
			}
			id, _ := b.CallID()
			key, _ := out[k].ResultID()
			if key != strings.TrimSpace(id) {
				return "the result at index " + itoa(k) + " answers " + key + ", not " + id
			}
		}
		i += len(calls)
	}
	return ""
}

// inputFrame is an assistant with calls in a generated input.
type inputFrame struct {
	seq    string
	pos    int
	end    int
	keys   []string
	failed bool
}

// realResultsKept checks that no real result whose call exists is lost:
//   - a turn that had real results for an id inside its own frame gets at
//     least as many real results for it (up to its number of calls of it);
//   - a call whose id is unique in the input, and that some real result
//     after it names, is answered by a real result;
//   - every emitted result carries the content of an input result, or is a
//     new synthetic.
func realResultsKept(tb testing.TB, in string, out []*transcript.Message) string {
	tb.Helper()
	src, err := transcript.FromMessages([]byte(in), transcript.Target(stagetest.Anthropic))
	if err != nil {
		tb.Fatal(err)
	}
	bySeq := map[string]*transcript.Message{}
	var frames []inputFrame
	occurrences := map[string]int{}
	for i, m := range src.Messages {
		if !m.IsObject() {
			continue
		}
		seq, _ := m.Get("seq")
		bySeq[string(seq)] = m
		if calls := m.ToolCalls(); m.Role() == transcript.RoleAssistant && len(calls) > 0 {
			f := inputFrame{seq: string(seq), pos: i, end: len(src.Messages)}
			sr := m.StopReason()
			f.failed = sr == transcript.StopError || sr == transcript.StopAborted
			for _, b := range calls {
				id, _ := b.CallID()
				f.keys = append(f.keys, strings.TrimSpace(id))
				occurrences[strings.TrimSpace(id)]++
			}
			if len(frames) > 0 {
				frames[len(frames)-1].end = i
			}
			frames = append(frames, f)
		}
	}
	isReal := func(m *transcript.Message) bool { return m.Role() == transcript.RoleToolResult && !m.Has("details") }

	// Output: the results emitted after each kept assistant, by seq.
	emitted := map[string][]*transcript.Message{}
	for i, m := range out {
		if m.Role() != transcript.RoleToolResult {
			continue
		}
		seq, ok := m.Get("seq")
		if !ok {
			if !isSynthetic(m) {
				return "a new result that is not synthetic at index " + itoa(i)
			}
		} else {
			orig := bySeq[string(seq)]
			a, _ := orig.Get("content")
			b, _ := m.Get("content")
			if !bytes.Equal(a, b) {
				return "the content of result seq " + string(seq) + " changed"
			}
		}
		for j := i - 1; j >= 0; j-- {
			if out[j].Role() == transcript.RoleAssistant {
				s, _ := out[j].Get("seq")
				emitted[string(s)] = append(emitted[string(s)], m)
				break
			}
		}
	}
	realOut := func(f inputFrame, key string) int {
		n := 0
		for _, r := range emitted[f.seq] {
			if k, _ := r.ResultID(); k == key {
				if seq, ok := r.Get("seq"); ok && isReal(bySeq[string(seq)]) {
					n++
				}
			}
		}
		return n
	}
	for _, f := range frames {
		if f.failed {
			continue
		}
		occ := map[string]int{}
		for _, k := range f.keys {
			occ[k]++
		}
		realIn := map[string]int{}
		for i := f.pos + 1; i < f.end; i++ {
			m := src.Messages[i]
			if k, ok := m.ResultID(); ok && isReal(m) {
				realIn[k]++
			}
		}
		for k, n := range occ {
			if want := min(n, realIn[k]); realOut(f, k) < want {
				return "turn seq " + f.seq + " lost a real result for " + k
			}
			if n != 1 || occurrences[k] != 1 {
				continue
			}
			for i := f.pos + 1; i < len(src.Messages); i++ {
				m := src.Messages[i]
				if rk, ok := m.ResultID(); ok && rk == k && isReal(m) {
					if realOut(f, k) != 1 {
						return "the unique call " + k + " of turn seq " + f.seq + " lost its real result"
					}
					break
				}
			}
		}
	}
	return ""
}

func itoa(i int) string { return strconv.Itoa(i) }

// FuzzPairingDamaged explores the damaged-history generator's seed space
// and checks the provider facts and the real-result guarantees on each.
func FuzzPairingDamaged(f *testing.F) {
	for seed := uint64(1); seed <= 8; seed++ {
		f.Add(seed, uint8(seed*7))
	}
	c := stagetest.Case{Target: stagetest.Anthropic}
	f.Fuzz(func(t *testing.T, seed uint64, turns uint8) {
		in := damagedHistory(seed, int(turns%64))
		c.CheckProperties(t, []byte(in), ToolResultPairing())
		res := c.Apply(t, in, ToolResultPairing())
		if err := adjacencyViolation(res.Transcript.Messages); err != "" {
			t.Fatalf("%s\n in: %s\nout: %s", err, in, res.JSON)
		}
		if err := realResultsKept(t, in, res.Transcript.Messages); err != "" {
			t.Fatalf("%s\n in: %s\nout: %s", err, in, res.JSON)
		}
	})
}
