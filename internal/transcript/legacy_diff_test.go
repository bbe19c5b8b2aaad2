package transcript_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transcript/legacy"
)

// reader is what the tape's message and block and the legacy ones share:
// every read a rule makes of a member.
type reader interface {
	Raw() []byte
	AppendJSON([]byte) []byte
	IsObject() bool
	Get(string) ([]byte, bool)
	Has(string) bool
	String(string) (string, bool)
	Bool(string) (bool, bool)
	Number(string) (float64, bool)
	IsNull(string) bool
}

// readAll describes every read of v's members, the keys of its encoding
// (and a few absent ones) included. A block's bytes as read are not
// compared: the legacy model replaced them with the encoding of an edited
// block (no rule reads them).
func readAll(b *strings.Builder, v reader) {
	enc := v.AppendJSON(nil)
	fmt.Fprintf(b, "encoding %q object %v\n", enc, v.IsObject())
	keys := []string{"role", "type", "content", "text", "id", "absent", "timestamp", "isError", "toolCallId"}
	if obj, err := transcript.ParseObject(enc); err == nil {
		for _, f := range obj.Fields {
			keys = append(keys, f.Key)
		}
	}
	for _, k := range keys {
		raw, ok := v.Get(k)
		s, sok := v.String(k)
		bv, bok := v.Bool(k)
		n, nok := v.Number(k)
		fmt.Fprintf(b, " %q: %s %v | %q %v | %v %v | %v %v | has %v null %v\n", k, raw, ok, s, sok, bv, bok, n, nok, v.Has(k), v.IsNull(k))
	}
}

func describeTape(m *transcript.Message) string {
	var b strings.Builder
	readAll(&b, m)
	fmt.Fprintf(&b, "raw %q role %q type %q invalid %v changed %v stop %q\n", m.Raw(), m.Role(), m.Type(), m.HasInvalidText(), m.Changed(), m.StopReason())
	blocks, isArray := m.Blocks()
	fmt.Fprintf(&b, "array %v %d\n", isArray, len(blocks))
	for _, blk := range blocks {
		readAll(&b, blk)
		fmt.Fprintf(&b, "type %q invalid %v call %v\n", blk.Type(), blk.HasInvalidText(), blk.IsToolCall())
	}
	return b.String()
}

func describeLegacy(m *legacy.Message) string {
	var b strings.Builder
	readAll(&b, m)
	fmt.Fprintf(&b, "raw %q role %q type %q invalid %v changed %v stop %q\n", m.Raw(), m.Role(), m.Type(), m.HasInvalidText(), m.Changed(), m.StopReason())
	blocks, isArray := m.Blocks()
	fmt.Fprintf(&b, "array %v %d\n", isArray, len(blocks))
	for _, blk := range blocks {
		readAll(&b, blk)
		fmt.Fprintf(&b, "type %q invalid %v call %v\n", blk.Type(), blk.HasInvalidText(), blk.IsToolCall())
	}
	return b.String()
}

// edit makes the same change to message i of both decodes, by its index:
// a member set, a change undone, a block edited, the block list reversed,
// the content replaced or deleted, the text repaired.
func edit(i int, m *transcript.Message, lm *legacy.Message) {
	if !m.IsObject() {
		m.RepairText()
		lm.RepairText()
		return
	}
	switch i % 7 {
	case 1:
		m.Set("edited", transcript.JSONInt(int64(i)))
		lm.Set("edited", legacy.JSONInt(int64(i)))
	case 2:
		m.Set("undone", []byte("1"))
		m.Delete("undone")
		lm.Set("undone", []byte("1"))
		lm.Delete("undone")
	case 3:
		blocks, _ := m.Blocks()
		lblocks, _ := lm.Blocks()
		if len(blocks) > 0 && blocks[0].IsObject() {
			blocks[0].SetString("text", "edited")
			lblocks[0].SetString("text", "edited")
		}
	case 4:
		blocks, ok := m.Blocks()
		lblocks, _ := lm.Blocks()
		if ok && len(blocks) > 1 {
			rb := make([]*transcript.Block, 0, len(blocks)+1)
			lrb := make([]*legacy.Block, 0, len(blocks)+1)
			for j := len(blocks) - 1; j >= 0; j-- {
				rb, lrb = append(rb, blocks[j]), append(lrb, lblocks[j])
			}
			m.SetBlocks(append(rb, transcript.TextBlock("added")))
			lm.SetBlocks(append(lrb, legacy.TextBlock("added")))
		}
	case 5:
		m.SetContentString("replaced")
		lm.SetContentString("replaced")
	case 6:
		m.Delete("content")
		lm.Delete("content")
	default:
		m.RepairText()
		lm.RepairText()
	}
}

// TestTapeMatchesLegacyDecoder holds the tape's decode to the legacy
// decoder's on sessiongen jobs and on copies broken at random places: the
// same error, or every read of every message and block the same, and after
// the same edits the same reads and the same payload.
func TestTapeMatchesLegacyDecoder(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	compared := 0
	for seed := range uint64(12) {
		_, job := sessiongen.New(sessiongen.Config{Seed: seed, Messages: 40 + int(seed)*15, ToolCallDensity: 0.5, Damage: sessiongen.Heavy(),
			TextChars: 60, ToolResultChars: 120, Target: chatTarget}).Job(0)
		inputs := [][]byte{job}
		for range 8 {
			at := rng.IntN(len(job))
			dropped := append(append([]byte{}, job[:at]...), job[at+1:]...)
			replaced := bytes.Clone(job)
			replaced[at] = `{}[],:"\`[rng.IntN(8)]
			spaced := append(append(append([]byte{}, job[:at]...), ' '), job[at:]...)
			inputs = append(inputs, dropped, replaced, spaced)
		}
		for _, data := range inputs {
			tr, err := transcript.DecodeJob(data, transcript.Limits{MaxDepth: 12})
			ltr, lerr := legacy.DecodeJob(data, legacy.Limits{MaxDepth: 12})
			if fmt.Sprint(err) != fmt.Sprint(lerr) || string(transcript.ErrorCode(err)) != string(legacy.ErrorCode(lerr)) {
				t.Fatalf("seed %d: error %v, legacy %v", seed, err, lerr)
			}
			if err != nil {
				continue
			}
			compared++
			if len(tr.Messages) != len(ltr.Messages) {
				t.Fatalf("seed %d: %d messages, legacy %d", seed, len(tr.Messages), len(ltr.Messages))
			}
			for i := range tr.Messages {
				if got, want := describeTape(tr.Messages[i]), describeLegacy(ltr.Messages[i]); got != want {
					t.Fatalf("seed %d message %d:\n%s\nlegacy:\n%s", seed, i, got, want)
				}
				edit(i, tr.Messages[i], ltr.Messages[i])
				if got, want := describeTape(tr.Messages[i]), describeLegacy(ltr.Messages[i]); got != want {
					t.Fatalf("seed %d message %d after the edit:\n%s\nlegacy:\n%s", seed, i, got, want)
				}
			}
			if got, want := tr.EncodePayload(nil, nil), ltr.EncodePayload(nil, nil); !bytes.Equal(got, want) {
				t.Fatalf("seed %d: payload\n%s\nlegacy\n%s", seed, got, want)
			}
		}
	}
	if compared < 12 {
		t.Fatalf("only %d inputs decoded: the comparison saw too little", compared)
	}
}
