package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pngBase64 is a blank PNG of w x h px, base64.
func pngBase64(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// TestMessage checks what a message's count is made of: its texts,
// thinking, tool call name and arguments, tool result text and images by
// their header's size, plus the per-message framing; and that MessageBound
// is never below it.
func TestMessage(t *testing.T) {
	img := pngBase64(t, 1092, 1092)
	history := fmt.Sprintf(`[
{"role":"user","content":"tiktoken is great!"},
{"role":"assistant","content":[{"type":"thinking","thinking":"hello world","thinkingSignature":"c2ln"},{"type":"toolCall","id":"call_1","name":"read","arguments":{"path":"README.md"}}]},
{"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"hello world"},{"type":"image","data":%q,"mimeType":"image/png"}]},
{"role":"user","content":[{"type":"image","data":"bm90IGFuIGltYWdl","mimeType":"image/png"}]}
]`, img)
	tr, err := transcript.FromMessages([]byte(history), transcript.Target{})
	if err != nil {
		t.Fatal(err)
	}
	gpt := For("openai", "openai-completions", "gpt-4o")
	claude := For("anthropic", "anthropic-messages", "claude-sonnet-4-5")
	o := func(s string) int { return o200k.count([]byte(s)) }
	for _, c := range []struct {
		counter *Counter
		i       int
		want    int
	}{
		{gpt, 0, 4 + 6},
		{gpt, 1, 4 + 2 + o("read") + o(`{"path":"README.md"}`)},
		{gpt, 2, 4 + o("read") + 2 + 765}, // 1092 px: 768 px, 2x2 tiles
		{gpt, 3, 4 + gpt.ImageMax()},      // no readable header
		{claude, 2, 4 + 2 + 3 + 1590},     // "read" 1 x 1.35 -> 2, "hello world" 2 x 1.35 -> 3
	} {
		if got := c.counter.Message(tr.Messages[c.i]); got != c.want {
			t.Errorf("%s: message %d = %d tokens, want %d", c.counter.Name(), c.i, got, c.want)
		}
	}
	for _, c := range []*Counter{gpt, claude, For("google", "google-generative-ai", "gemini-2.5-pro")} {
		for i, m := range tr.Messages {
			if n, b := c.Message(m), c.MessageBound(m); n > b {
				t.Errorf("%s: message %d: Message %d > MessageBound %d", c.Name(), i, n, b)
			}
		}
	}
}

// TestImageMax checks that no size up to 8000 px counts above ImageMax.
func TestImageMax(t *testing.T) {
	for _, fam := range []string{famO200k, famMini4o, famGPT5, famPatch162, famClaude, famClaudeNew, famGemini2, famGemini3, famMistral} {
		c := newCounter(fam)
		for w := 1; w <= 8000; w += 97 {
			for h := 1; h <= 8000; h += 89 {
				if n := c.Image(w, h); n > c.ImageMax() {
					t.Fatalf("%s: %dx%d = %d > ImageMax %d", fam, w, h, n, c.ImageMax())
				}
			}
		}
	}
}

// TestRequest checks the system prompt, the tools and the framing.
func TestRequest(t *testing.T) {
	gpt := For("openai", "openai-completions", "gpt-4o")
	if got, want := gpt.Request(nil, nil), openAIPerRequest; got != want {
		t.Errorf("empty request = %d, want %d", got, want)
	}
	tools := []byte(`[{"type":"function","function":{"name":"read","parameters":{"type":"object"}}}]`)
	if got, want := gpt.Request([]byte("hello world"), tools), openAIPerRequest+openAIPerMessage+2+openAIToolFraming+o200k.count(tools); got != want {
		t.Errorf("request = %d, want %d", got, want)
	}
	claude := For("anthropic", "anthropic-messages", "claude-opus-4-1")
	if got := claude.Request(nil, []byte("[]")); got != boundPerRequest {
		t.Errorf("no tools: %d", got)
	}
	if got := claude.Request(nil, tools); got < anthropicToolPrompt {
		t.Errorf("tools without Anthropic's tool prompt: %d", got)
	}
	for _, c := range []*Counter{gpt, claude} {
		if n, b := c.Request([]byte("You are a scientist"), tools), c.RequestBound([]byte("You are a scientist"), tools); n > b {
			t.Errorf("%s: Request %d > RequestBound %d", c.Name(), n, b)
		}
	}
}

// TestDocument checks the document blocks: a text document as its text, a
// PDF by its pages, another file as text, one by reference as one page.
func TestDocument(t *testing.T) {
	pdf := "%PDF-1.4\n1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >> endobj\n" +
		"2 0 obj << /Type /Page /Parent 1 0 R >> endobj\n3 0 obj << /Type/Page /Parent 1 0 R >> endobj\n%%EOF"
	b64 := base64.StdEncoding.EncodeToString
	history := fmt.Sprintf(`[{"role":"user","content":[
{"type":"document","text":"hello world","mimeType":"text/plain"},
{"type":"document","data":%q,"mimeType":"application/pdf","name":"a.pdf"},
{"type":"document","data":%q,"mimeType":"text/csv"},
{"type":"document","url":"https://example.com/a.pdf","mimeType":"application/pdf"}]}]`,
		b64([]byte(pdf)), b64([]byte("tiktoken is great!")))
	tr, err := transcript.FromMessages([]byte(history), transcript.Target{})
	if err != nil {
		t.Fatal(err)
	}
	c := For("openai", "openai-responses", "gpt-4o")
	page := pdfPageText + c.ImageMax()
	want := openAIPerMessage + 2 + 2*page + 6 + page
	if got := c.Message(tr.Messages[0]); got != want {
		t.Errorf("documents = %d tokens, want %d", got, want)
	}
	if b := c.MessageBound(tr.Messages[0]); b < want {
		t.Errorf("MessageBound %d < Message %d", b, want)
	}
}

// TestBoundsOverRealisticHistories checks, over the realistic generator's
// histories (texts, thinking, tool calls and results, images, damage),
// that MessageBound is never below Message for any family.
func TestBoundsOverRealisticHistories(t *testing.T) {
	for seed := range uint64(4) {
		tg := transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: "claude-opus-4-6"}
		history := sessiongen.New(sessiongen.Config{Seed: seed + 1, Messages: 120, Images: 3, ToolCallDensity: 0.6,
			Damage: sessiongen.Realistic(), Target: tg}).History()
		tr, err := transcript.FromMessages(history, tg)
		if err != nil {
			t.Fatal(err)
		}
		for _, fam := range []string{famO200k, famCl100k, famPatch246, famClaude, famClaudeNew, famGemini2, famGemini3, famMistral, famUnknown} {
			c := newCounter(fam)
			total := 0
			for i, m := range tr.Messages {
				n, b := c.Message(m), c.MessageBound(m)
				if n > b {
					t.Errorf("seed %d, %s: message %d: Message %d > MessageBound %d", seed, fam, i, n, b)
				}
				total += n
			}
			if total < 4*len(tr.Messages) {
				t.Errorf("seed %d, %s: %d tokens for %d messages", seed, fam, total, len(tr.Messages))
			}
		}
	}
}
