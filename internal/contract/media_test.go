package contract

import (
	"slices"
	"strings"
	"testing"
)

// pdfDoc is a user turn with n PDF documents of size base64 characters.
func pdfDocs(n, size int) string {
	var parts []string
	for range n {
		parts = append(parts, `{"type":"document","data":"`+strings.Repeat("A", size)+`","mimeType":"application/pdf","name":"report"}`)
	}
	return `[{"role":"user","content":[` + strings.Join(parts, ",") + `,{"type":"text","text":"read these"}]}]`
}

// TestCheckDocuments: the check holds each family to its document facts.
func TestCheckDocuments(t *testing.T) {
	urlImage := `[{"role":"user","content":[{"type":"image","url":"https://upload.wikimedia.org/a.jpg"},{"type":"text","text":"what is it"}]}]`
	fileDoc := `[{"role":"user","content":[{"type":"document","fileId":"file-6F2ksmvXxt4VdoqmHRw6kL"},{"type":"text","text":"summarize"}]}]`
	csvDoc := `[{"role":"user","content":[{"type":"document","data":"YSxiCg==","mimeType":"text/csv"},{"type":"text","text":"sum column b"}]}]`
	inAssistant := `[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"document","url":"https://x.example/a.pdf"},{"type":"text","text":"here"}]}]`
	cases := []struct {
		name   string
		family Family
		msgs   string
		rule   string // "" for none
	}{
		{"five Bedrock documents", BedrockConverse, pdfDocs(5, 8), ""},
		{"six Bedrock documents", BedrockConverse, pdfDocs(6, 8), RuleDocumentsPerReq},
		{"a Bedrock document of 4.5 MB", BedrockConverse, pdfDocs(1, 4608<<10/3*4), ""},
		{"a Bedrock document over 4.5 MB", BedrockConverse, pdfDocs(1, 4608<<10/3*4+8), RuleDocumentBytes},
		{"OpenAI: 32 MB of files in all", OpenAIChat, pdfDocs(2, 22<<20), RuleDocumentBytes},
		{"an image by URL on Anthropic", AnthropicMessages, urlImage, ""},
		{"an image by URL on Bedrock", BedrockConverse, urlImage, RuleDocumentPlace},
		{"a file id on Responses", OpenAIResponses, fileDoc, ""},
		{"a file id on Gemini", Gemini, fileDoc, RuleDocumentPlace},
		{"a CSV on Bedrock", BedrockConverse, csvDoc, ""},
		{"a CSV on Chat Completions (PDF only)", OpenAIChat, csvDoc, RuleDocumentPlace},
		{"a document in an assistant turn", AnthropicMessages, inAssistant, RuleDocumentPlace},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := check(t, c.family, 0, c.msgs)
			if c.rule == "" {
				if !r.OK() {
					t.Fatalf("violations: %v", r.Violations)
				}
				return
			}
			if r.Counts[c.rule] == 0 || r.Total != r.Counts[c.rule] {
				t.Fatalf("counts %v, want only %s", r.Counts, c.rule)
			}
		})
	}
}

// renderedAs is the body format each family's jobs are rendered in
// (wire.FormatFor).
var renderedAs = map[Family]BodyFormat{
	AnthropicMessages: BodyAnthropic, AnthropicCloud: BodyAnthropic, AnthropicCompatible: BodyAnthropic,
	BedrockConverse: BodyBedrock, OpenAIChat: BodyChat, OpenAIResponses: BodyResponses, Gemini: BodyGemini,
	Mistral: BodyMistral, OpenAICompatible: BodyChat, Passthrough: BodyChat,
}

// TestFamiliesCarryNoMoreThanTheirFormat: what a family's contract lets
// through, the format its jobs are rendered in has a place for, so the
// stage "documents" and the renderer never disagree.
func TestFamiliesCarryNoMoreThanTheirFormat(t *testing.T) {
	for _, fam := range Families() {
		f, ok := renderedAs[fam]
		if !ok {
			t.Fatalf("%s: no format", fam)
		}
		d, w := Of(fam).Documents, f.Media()
		if d.Documents&^w.Documents != 0 || d.Images&^w.Images != 0 {
			t.Errorf("%s carries sources %b/%b, its format %s only %b/%b", fam, d.Documents, d.Images, f, w.Documents, w.Images)
		}
		if d.Documents&ByData == 0 || w.MIMETypes == "" {
			continue
		}
		if d.MIMETypes == "" {
			t.Errorf("%s takes documents of any type, its format %s only %v", fam, f, w.MIMETypes)
		}
		for _, m := range strings.Fields(d.MIMETypes) {
			if !slices.Contains(strings.Fields(w.MIMETypes), m) {
				t.Errorf("%s takes %s, its format %s does not", fam, m, f)
			}
		}
	}
}
