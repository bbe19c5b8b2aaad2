package media

import (
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/stages/stagetest"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

var (
	bedrockTarget    = transcript.Target{Provider: "amazon-bedrock", API: "bedrock-converse-stream", Model: "anthropic.claude-3-7-sonnet-20250219-v1:0"}
	minimaxTarget    = transcript.Target{Provider: "minimax", API: "anthropic-messages", Model: "MiniMax-M2"}
	openAIChatTarget = transcript.Target{Provider: "openai", API: "openai-completions", Model: "gpt-4.1"}
)

// pdfBlock is a PDF document block named name, of size base64 characters.
func pdfBlock(name string, size int) string {
	return `{"type":"document","data":"` + strings.Repeat("A", size) + `","mimeType":"application/pdf","name":"` + name + `"}`
}

// TestDocuments: what the target has no place for, or is over its limits,
// becomes a text that names it, counted by kind; the rest is untouched.
func TestDocuments(t *testing.T) {
	var six []string
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		six = append(six, pdfBlock(n, 8))
	}
	cases := []struct {
		name   string
		target transcript.Target
		in     string
		want   string
		counts map[string]int
	}{
		{"carried: untouched", stagetest.Anthropic,
			`[{"role":"user","content":[` + pdfBlock("a", 8) + `,{"type":"image","url":"https://x.example/a.png"}]}]`,
			`[{"role":"user","content":[` + pdfBlock("a", 8) + `,{"type":"image","url":"https://x.example/a.png"}]}]`, nil},
		{"no place: a placeholder per kind", bedrockTarget,
			`[{"role":"user","content":[{"type":"image","url":"https://x.example/a.png"},{"type":"document","fileId":"file_011CNvxoj286tYUAZFiZMf1U"},{"type":"text","text":"q"}]}]`,
			`[{"role":"user","content":[{"type":"text","text":"[image https://x.example/a.png not sent: bedrock-converse has no place for it]"},{"type":"text","text":"[document file_011CNvxoj286tYUAZFiZMf1U not sent: bedrock-converse has no place for it]"},{"type":"text","text":"q"}]}]`,
			map[string]int{"replaced_image_url": 1, "replaced_file_id": 1}},
		{"a text document with no document place is its text", minimaxTarget,
			`[{"role":"user","content":[{"type":"document","text":"The grass is green.","name":"notes.txt"}]}]`,
			`[{"role":"user","content":[{"type":"text","text":"[document \"notes.txt\"]\nThe grass is green."}]}]`,
			map[string]int{"as_text": 1}},
		{"beyond five documents the oldest goes", bedrockTarget,
			`[{"role":"user","content":[` + strings.Join(six, ",") + `]}]`,
			`[{"role":"user","content":[{"type":"text","text":"[document \"a\" (application/pdf) not sent: over the target's document limits]"},` + strings.Join(six[1:], ",") + `]}]`,
			map[string]int{"replaced_document": 1}},
		{"a CSV on Chat Completions (PDF only)", openAIChatTarget,
			`[{"role":"user","content":[{"type":"document","data":"YSxiCg==","mimeType":"text/csv","name":"t.csv"}]}]`,
			`[{"role":"user","content":[{"type":"text","text":"[document \"t.csv\" (text/csv) not sent: openai-chat-completions has no place for it]"}]}]`,
			map[string]int{"replaced_document": 1}},
		{"a PDF in an image block is a document", bedrockTarget,
			`[{"role":"user","content":[{"type":"image","data":"JVBERi0xLjQK","mimeType":"application/pdf"},{"type":"text","text":"read it"}]}]`,
			`[{"role":"user","content":[{"type":"document","data":"JVBERi0xLjQK","mimeType":"application/pdf"},{"type":"text","text":"read it"}]}]`,
			map[string]int{"image_as_document": 1}},
		{"an assistant turn carries no file", stagetest.Anthropic,
			`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"document","url":"https://x.example/a.pdf"},{"type":"text","text":"here"}]}]`,
			`[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"[document https://x.example/a.pdf not sent: an assistant turn carries no file]"},{"type":"text","text":"here"}]}]`,
			map[string]int{"replaced_document": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := stagetest.Case{Target: c.target}.Apply(t, c.in, Documents())
			stagetest.Equal(t, res.JSON, c.want)
			got := res.Report.Stages.Of("documents")
			if len(got) != len(c.counts) {
				t.Errorf("counts %v, want %v", got, c.counts)
			}
			for k, n := range c.counts {
				if got[k] != n {
					t.Errorf("counts %v, want %v", got, c.counts)
				}
			}
		})
	}
}

// FuzzDocuments: the stage's properties (no panic, output re-parses, a
// second run changes nothing, two runs give the same bytes) on every
// target family's document facts.
func FuzzDocuments(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":[` + pdfBlock("a", 8) + `,{"type":"image","url":"u"},{"type":"image","fileId":"f","mimeType":7},{"type":"document","text":"t"},{"type":"document","s3Uri":"s3://b/k"}]},{"role":"assistant","content":[{"type":"image","s3Uri":"s3://b/i"}]}]`))
	f.Add([]byte(`[{"role":"toolResult","toolCallId":"c","content":[{"type":"document","data":"AA==","mimeType":"text/csv"},{"type":"document","url":1}]}]`))
	targets := []transcript.Target{stagetest.Anthropic, bedrockTarget, minimaxTarget, openAIChatTarget}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, tg := range targets {
			stagetest.Case{Target: tg}.CheckProperties(t, in, Documents())
		}
	})
}

// TestRequestSizeDocuments: over the request cap the oldest document or
// image goes first, a document as a placeholder that names it.
func TestRequestSizeDocuments(t *testing.T) {
	png := b64(pngBytes(t, 200, 150))
	in := `[{"role":"user","content":[` + pdfBlock("old.pdf", 4000) + `]},` + userImages(1, png) + `,{"role":"user","content":[` + pdfBlock("new.pdf", 4000) + `]}]`
	res := stagetest.Case{Target: stagetest.Anthropic}.Apply(t, in, withRequestLimit(len(in)-1000), RequestSize())
	want := `[document \"old.pdf\" (application/pdf) not sent: the request is over its size limit]`
	if !strings.Contains(string(res.JSON), want) || !strings.Contains(string(res.JSON), `"name":"new.pdf"`) || strings.Contains(string(res.JSON), StaleImageMarker) {
		t.Fatalf("want only the oldest document replaced:\n%s", strings.ReplaceAll(string(res.JSON), png, "PNG"))
	}
	if got := res.Report.Stages.Of("request_size"); got["replaced_document"] != 1 || got["stale_images"] != 0 {
		t.Fatalf("report %v", got)
	}
}
