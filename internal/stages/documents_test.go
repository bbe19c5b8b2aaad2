package stages

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// pdfBase64 is a one-catalog PDF ("%PDF-1.4 ... %%EOF"), base64.
const pdfBase64 = "JVBERi0xLjQKMSAwIG9iajw8L1R5cGUvQ2F0YWxvZy9QYWdlcyAyIDAgUj4+ZW5kb2JqCjIgMCBvYmo8PC9UeXBlL1BhZ2VzL0tpZHNbXS9Db3VudCAwPj5lbmRvYmoKdHJhaWxlcjw8L1Jvb3QgMSAwIFI+PgolJUVPRgo="

// The request bodies of the document tests: each attaches files the way
// its SDK sends them.
var (
	// anthropicPDFBody: a base64 PDF with a title, and an image by URL
	// (the Anthropic SDK's document and url-image blocks).
	anthropicPDFBody = `{"model":"claude-opus-4-6","max_tokens":1024,"messages":[{"role":"user","content":[` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdfBase64 + `"},"title":"Q3 report"},` +
		`{"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}},` +
		`{"type":"text","text":"What does the report say about the ant?"}]}]}`
	// anthropicRefsBody: a PDF by URL and an image by Files API id.
	anthropicRefsBody = `{"model":"claude-opus-4-6","max_tokens":1024,"messages":[{"role":"user","content":[` +
		`{"type":"document","source":{"type":"url","url":"https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf"}},` +
		`{"type":"image","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}},` +
		`{"type":"text","text":"Compare them."}]}]}`
	// geminiPDFBody: google-genai's Part.from_bytes(data, mime_type="application/pdf").
	geminiPDFBody = `{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"application/pdf","data":"` + pdfBase64 + `"}},{"text":"Summarize this document"}]}]}`
)

// TestDocumentsReachTheTarget: documents and images by URL or file id
// reach a target with a place for them in the target's own shape, and
// become a placeholder that names them, counted by kind in the report,
// where it has none. A PDF never takes the image path. Reproducers of
// issue 29 defect 4: on 0988e1e the parse dropped every one of them, and
// Gemini's inline PDF became an "unsupported image format" text on every
// target.
func TestDocumentsReachTheTarget(t *testing.T) {
	anthropicSrc := formatTargets[wire.AnthropicMessages]
	geminiSrc := formatTargets[wire.GeminiContents]
	cases := []struct {
		name     string
		from     wire.Format
		body     string
		src      transcript.Target
		to       wire.Format
		want     []string       // substrings of the rendered body
		replaced map[string]int // the report's documents stage counts
	}{
		{"Anthropic PDF and URL image back to Anthropic", wire.AnthropicMessages, anthropicPDFBody, anthropicSrc, wire.AnthropicMessages,
			[]string{`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdfBase64 + `"},"title":"Q3 report"}`,
				`{"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}}`}, nil},
		{"Anthropic URL PDF and file image back to Anthropic", wire.AnthropicMessages, anthropicRefsBody, anthropicSrc, wire.AnthropicMessages,
			[]string{`{"type":"document","source":{"type":"url","url":"https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf"}}`,
				`{"type":"image","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}}`}, nil},
		{"Anthropic PDF to Bedrock: a document block; the URL image a placeholder", wire.AnthropicMessages, anthropicPDFBody, anthropicSrc, wire.BedrockConverse,
			[]string{`{"document":{"format":"pdf","name":"Q3 report","source":{"bytes":"` + pdfBase64 + `"}}}`,
				`[image https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg not sent: bedrock-converse has no place for it]`},
			map[string]int{"replaced_image_url": 1}},
		{"Anthropic PDF to Chat: a file part", wire.AnthropicMessages, anthropicPDFBody, anthropicSrc, wire.OpenAIChat,
			[]string{`{"type":"file","file":{"filename":"Q3 report","file_data":"data:application/pdf;base64,` + pdfBase64 + `"}}`,
				`{"type":"image_url","image_url":{"url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}}`}, nil},
		{"Anthropic references to Chat: placeholders", wire.AnthropicMessages, anthropicRefsBody, anthropicSrc, wire.OpenAIChat,
			[]string{`[document https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf not sent: openai-chat-completions has no place for it]`,
				`[image file_011CNha8iCJcU1wXNR6q4V8w not sent: openai-chat-completions has no place for it]`},
			map[string]int{"replaced_document": 1, "replaced_file_id": 1}},
		{"Anthropic references to Responses: input_file; Anthropic's file id is not OpenAI's", wire.AnthropicMessages, anthropicRefsBody, anthropicSrc, wire.OpenAIResponses,
			[]string{`{"type":"input_file","file_url":"https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf"}`,
				`[image file_011CNha8iCJcU1wXNR6q4V8w not sent: openai-responses has no place for it]`},
			map[string]int{"replaced_file_id": 1}},
		{"Gemini inline PDF back to Gemini", wire.GeminiContents, geminiPDFBody, geminiSrc, wire.GeminiContents,
			[]string{`{"inlineData":{"mimeType":"application/pdf","data":"` + pdfBase64 + `"}}`}, nil},
		{"Gemini inline PDF to Anthropic", wire.GeminiContents, geminiPDFBody, geminiSrc, wire.AnthropicMessages,
			[]string{`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdfBase64 + `"}}`}, nil},
		{"Gemini inline PDF to Bedrock", wire.GeminiContents, geminiPDFBody, geminiSrc, wire.BedrockConverse,
			[]string{`{"document":{"format":"pdf","name":"document","source":{"bytes":"` + pdfBase64 + `"}}}`}, nil},
		{"Gemini inline PDF to Chat", wire.GeminiContents, geminiPDFBody, geminiSrc, wire.OpenAIChat,
			[]string{`{"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,` + pdfBase64 + `"}}`}, nil},
		{"Gemini inline PDF to Responses", wire.GeminiContents, geminiPDFBody, geminiSrc, wire.OpenAIResponses,
			[]string{`{"type":"input_file","filename":"document","file_data":"data:application/pdf;base64,` + pdfBase64 + `"}`}, nil},
		{"Gemini inline PDF to Mistral", wire.GeminiContents, geminiPDFBody, geminiSrc, wire.MistralChat,
			[]string{`{"type":"document_url","document_url":"data:application/pdf;base64,` + pdfBase64 + `"}`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, rep, rej := sanitizeBody(t, c.from, []byte(c.body), c.src, formatTargets[c.to])
			if rej != nil {
				t.Fatalf("rejected: %v", rej)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("body lacks %s\n%s", w, out)
				}
			}
			if strings.Contains(string(out), "image format") || strings.Contains(string(out), "image omitted") {
				t.Errorf("a document took the image path:\n%s", out)
			}
			got := rep.Stages.Of("documents")
			for k, n := range c.replaced {
				if got[k] != n {
					t.Errorf("report documents.%s = %d, want %d (%v)", k, got[k], n, got)
				}
			}
			if c.replaced == nil && len(got) > 0 {
				t.Errorf("report documents = %v, want nothing replaced", got)
			}
		})
	}
}

// TestDocumentsAcrossFormatsCounted: for all 36 format pairs, through the
// whole chain, every document and image by reference of the input body
// (internal/wire/testdata/documents) is in the target's body, or a
// placeholder that names it; and the placeholders in the body are as many
// as the report counts (replaced_<kind>, stages documents and
// request_size).
func TestDocumentsAcrossFormatsCounted(t *testing.T) {
	for _, from := range wire.Formats {
		input, err := os.ReadFile(filepath.Join("..", "wire", "testdata", "documents", string(from)+".input.json"))
		if err != nil {
			t.Fatal(err)
		}
		src := wire.DefaultSource(from)
		for _, to := range wire.Formats {
			tg := formatTargets[to]
			p := policy.Resolve(tg)
			parsed, err := wire.Parse(from, input, src, wire.FormatFor(p))
			if err != nil {
				t.Fatal(err)
			}
			in, err := transcript.FromMessages(parsed.Messages, src)
			if err != nil {
				t.Fatal(err)
			}
			body, rep, rej := sanitizeBody(t, from, input, src, tg)
			if rej != nil {
				t.Fatalf("%s→%s: rejected: %v", from, to, rej)
			}
			placeholders := strings.Count(string(body), " not sent: ")
			counted := 0
			for _, stage := range []string{"documents", "request_size"} {
				for k, n := range rep.Stages.Of(stage) {
					if strings.HasPrefix(k, "replaced_") {
						counted += n
					}
				}
			}
			if placeholders != counted {
				t.Errorf("%s→%s: %d placeholders in the body, %d counted (%v)", from, to, placeholders, counted, rep.Stages.Of("documents"))
			}
			for _, m := range in.Messages {
				blocks, _ := m.Blocks()
				for _, b := range blocks {
					if b.MediaKind() == "" {
						continue
					}
					named := b.MediaPlaceholder("")
					named = named[:strings.Index(named, " not sent: ")]
					ref := transcript.JSONString(named)
					placeholder := bytes.Contains(body, ref[1:len(ref)-1])
					v, _ := b.Get(b.MediaSource())
					rest := body
					if placeholder {
						rest = bytes.ReplaceAll(body, ref[1:len(ref)-1], nil)
					}
					if inBody := bytes.Contains(rest, v[1:len(v)-1]); inBody == placeholder {
						t.Errorf("%s→%s: %s in the body %v, named by a placeholder %v:\n%s", from, to, b.AppendJSON(nil), inBody, placeholder, body)
					}
				}
			}
		}
	}
}
