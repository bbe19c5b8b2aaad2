package turns

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestContentIsArrayAgreesWithEncodedContent holds contentIsArray to what
// replayAssistant read before it: the first byte of the encoded content
// (m.Get), for content decoded, edited in place, replaced and written as
// bytes, with and without stale blocks.
func TestContentIsArrayAgreesWithEncodedContent(t *testing.T) {
	in := `[{"role":"assistant","content":[{"type":"text","text":"a"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"b"},{"type":"thinking","thinking":"t"}]},` +
		`{"role":"assistant","content":"s"},` +
		`{"role":"assistant","content":{"type":"text","text":"o"}},` +
		`{"role":"assistant","content":null},` +
		`{"role":"assistant","content":7},` +
		`{"role":"assistant"},` +
		`{"role":"assistant","content":[]}]`
	edits := map[string]func(m *transcript.Message){
		"decoded": func(*transcript.Message) {},
		"block edited": func(m *transcript.Message) {
			if bs, ok := m.Blocks(); ok && len(bs) > 0 {
				bs[0].SetString("text", "edited")
			}
		},
		"blocks set":   func(m *transcript.Message) { m.SetBlocks([]*transcript.Block{transcript.TextBlock("x")}) },
		"blocks nil":   func(m *transcript.Message) { m.SetBlocks(nil) },
		"set string":   func(m *transcript.Message) { m.SetContentString("s") },
		"set object":   func(m *transcript.Message) { m.Set("content", []byte(`{"type":"text","text":"o"}`)) },
		"set array":    func(m *transcript.Message) { m.Set("content", []byte(`[{"type":"text","text":"w"}]`)) },
		"set unparsed": func(m *transcript.Message) { m.Set("content", []byte(`[{"type":`)) },
		"deleted":      func(m *transcript.Message) { m.Delete("content") },
	}
	for name, edit := range edits {
		tr, err := transcript.FromMessages([]byte(in), anthropicTarget)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range tr.Messages {
			edit(m)
			raw, has := m.Get("content")
			want := has && len(raw) > 0 && raw[0] == '['
			if got := contentIsArray(m); got != want {
				t.Errorf("%s, message %d (content %s): contentIsArray = %v, the encoded content says %v", name, i, raw, got, want)
			}
		}
	}
}
