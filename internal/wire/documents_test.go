package wire

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// pdf is a one-catalog PDF ("%PDF-1.4 ... %%EOF"), base64.
const pdf = "JVBERi0xLjQKMSAwIG9iajw8L1R5cGUvQ2F0YWxvZy9QYWdlcyAyIDAgUj4+ZW5kb2JqCjIgMCBvYmo8PC9UeXBlL1BhZ2VzL0tpZHNbXS9Db3VudCAwPj5lbmRvYmoKdHJhaWxlcjw8L1Jvb3QgMSAwIFI+PgolJUVPRgo="

// documentBodies are one body per format with every way it attaches a
// document or an image by reference (as its SDK writes them), and the
// values (base64, URLs, file ids, texts) a round trip must keep.
var documentBodies = map[Format]struct {
	body string
	keep []string
}{
	AnthropicMessages: {`{"model":"claude-opus-4-6","max_tokens":1024,"messages":[` +
		`{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf + `"},"title":"Q3 report","citations":{"enabled":true},"cache_control":{"type":"ephemeral"}},` +
		`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"The grass is green. The sky is blue."},"title":"My Document"},` +
		`{"type":"document","source":{"type":"url","url":"https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf"}},` +
		`{"type":"document","source":{"type":"file","file_id":"file_011CNvxoj286tYUAZFiZMf1U"}},` +
		`{"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}},` +
		`{"type":"image","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}},` +
		`{"type":"text","text":"Summarize all of these."}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9X","name":"fetch","input":{"url":"https://example.com/a.pdf"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A09q90qw90lq917835lq9X","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf + `"}}]}]}]}`,
		[]string{pdf, "The grass is green. The sky is blue.", "https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf",
			"file_011CNvxoj286tYUAZFiZMf1U", "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg", "file_011CNha8iCJcU1wXNR6q4V8w"}},
	BedrockConverse: {`{"messages":[{"role":"user","content":[` +
		`{"document":{"format":"pdf","name":"Q3 report","source":{"bytes":"` + pdf + `"}}},` +
		`{"document":{"format":"pdf","name":"Annual report","source":{"s3Location":{"uri":"s3://amzn-s3-demo-bucket/reports/annual.pdf","bucketOwner":"111122223333"}}}},` +
		`{"document":{"format":"txt","name":"notes","source":{"text":"Meeting notes: ship on Friday."}}},` +
		`{"image":{"format":"png","source":{"s3Location":{"uri":"s3://amzn-s3-demo-bucket/images/chart.png"}}}},` +
		`{"text":"Summarize these."}]}]}`,
		[]string{pdf, "s3://amzn-s3-demo-bucket/reports/annual.pdf", "111122223333", "Meeting notes: ship on Friday.", "s3://amzn-s3-demo-bucket/images/chart.png"}},
	OpenAIChat: {`{"model":"gpt-4.1","messages":[{"role":"user","content":[` +
		`{"type":"file","file":{"filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,` + pdf + `"}},` +
		`{"type":"file","file":{"file_id":"file-6F2ksmvXxt4VdoqmHRw6kL"}},` +
		`{"type":"image_url","image_url":{"url":"https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg","detail":"low"}},` +
		`{"type":"text","text":"What is the first dragon in the book?"}]}]}`,
		[]string{pdf, "file-6F2ksmvXxt4VdoqmHRw6kL", "https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg"}},
	OpenAIResponses: {`{"model":"gpt-5","input":[{"role":"user","content":[` +
		`{"type":"input_file","filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,` + pdf + `"},` +
		`{"type":"input_file","file_url":"https://www.berkshirehathaway.com/letters/2024ltr.pdf"},` +
		`{"type":"input_file","file_id":"file-6F2ksmvXxt4VdoqmHRw6kL"},` +
		`{"type":"input_image","image_url":"https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg"},` +
		`{"type":"input_image","file_id":"file-WwqGDjdNbjHNn1k8Dy6Qxb"},` +
		`{"type":"input_text","text":"Analyze the letter and the pictures."}]}]}`,
		[]string{pdf, "https://www.berkshirehathaway.com/letters/2024ltr.pdf", "file-6F2ksmvXxt4VdoqmHRw6kL",
			"https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg", "file-WwqGDjdNbjHNn1k8Dy6Qxb"}},
	GeminiContents: {`{"contents":[{"role":"user","parts":[` +
		`{"inlineData":{"mimeType":"application/pdf","data":"` + pdf + `"}},` +
		`{"inlineData":{"mimeType":"text/plain","data":"VGhlIGdyYXNzIGlzIGdyZWVuLg=="}},` +
		`{"fileData":{"mimeType":"application/pdf","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/8t8ly1ufkdcr"}},` +
		`{"fileData":{"mimeType":"image/jpeg","fileUri":"gs://cloud-samples-data/generative-ai/image/scones.jpg"}},` +
		`{"text":"Summarize this document"}]}]}`,
		[]string{pdf, "VGhlIGdyYXNzIGlzIGdyZWVuLg==", "https://generativelanguage.googleapis.com/v1beta/files/8t8ly1ufkdcr", "gs://cloud-samples-data/generative-ai/image/scones.jpg"}},
	MistralChat: {`{"model":"mistral-small-latest","messages":[{"role":"user","content":[` +
		`{"type":"text","text":"what is the last sentence in the document"},` +
		`{"type":"document_url","document_url":"https://arxiv.org/pdf/1805.04770"},` +
		`{"type":"document_url","document_url":"data:application/pdf;base64,` + pdf + `","document_name":"report.pdf"},` +
		`{"type":"image_url","image_url":"https://tripfixers.com/wp-content/uploads/2019/11/eiffel-tower-with-snow.jpeg"}]}]}`,
		[]string{pdf, "https://arxiv.org/pdf/1805.04770", "https://tripfixers.com/wp-content/uploads/2019/11/eiffel-tower-with-snow.jpeg"}},
}

// TestDocumentRoundTrip: render_F(parse_F(B)) keeps every document and
// image by reference of B, and both the parse and the body are the golden
// files testdata/documents/<format>.{messages,body}.json (go test -update
// rewrites; review the diff). On 0988e1e the parse dropped each of them.
func TestDocumentRoundTrip(t *testing.T) {
	for f, c := range documentBodies {
		t.Run(string(f), func(t *testing.T) {
			src := DefaultSource(f)
			parsed, err := Parse(f, []byte(c.body), src, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(parsed.Dropped) > 0 {
				t.Errorf("dropped %v", parsed.Dropped)
			}
			tr, err := transcript.FromMessages(parsed.Messages, src)
			if err != nil {
				t.Fatal(err)
			}
			body := Render(nil, f, policy.Resolve(src), tr.Messages, Request{})
			if !json.Valid(body) {
				t.Fatalf("invalid JSON: %s", body)
			}
			for _, v := range c.keep {
				if !bytes.Contains(body, []byte(v)) {
					t.Errorf("the body lost %s:\n%s", v, body)
				}
			}
			if bytes.Contains(body, []byte("not sent")) {
				t.Errorf("a placeholder on the input's own format:\n%s", body)
			}
			golden(t, filepath.Join("testdata", "documents", string(f)+".messages.json"), parsed.Messages)
			golden(t, filepath.Join("testdata", "documents", string(f)+".body.json"), body)
		})
	}
}

// golden compares raw JSON, indented, with the golden file at path (go
// test -update ./internal/wire rewrites it; review the diff).
func golden(t *testing.T, path string, raw []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", " "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update ./internal/wire to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("differs from %s (inspect, then go test -update ./internal/wire)\ngot:\n%s", path, firstLines(buf.String(), 60))
	}
}

// TestDocumentsAcrossFormats: every document and image by reference of
// every format's body reaches every other format either in the body, in
// that format's own shape, or as a placeholder that names it; never
// silently, and never through the image path.
func TestDocumentsAcrossFormats(t *testing.T) {
	for from, c := range documentBodies {
		for _, to := range Formats {
			src := DefaultSource(from)
			parsed, err := Parse(from, []byte(c.body), src, to)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := transcript.FromMessages(parsed.Messages, src)
			if err != nil {
				t.Fatal(err)
			}
			body := Render(nil, to, policy.Resolve(DefaultSource(to)), tr.Messages, Request{})
			if !json.Valid(body) {
				t.Fatalf("%s→%s: invalid JSON: %s", from, to, body)
			}
			refs := 0
			for _, m := range tr.Messages {
				blocks, _ := m.Blocks()
				for _, b := range blocks {
					if b.MediaKind() == "" {
						continue
					}
					refs++
					text := stringBody(transcript.JSONString(b.MediaPlaceholder(string(to) + " has no place for it")))
					placeholder := bytes.Contains(body, text)
					rest := bytes.ReplaceAll(body, text, nil) // the placeholder names the file: look past it
					src := b.MediaSource()
					v, _ := b.Get(src)
					inBody := bytes.Contains(rest, stringBody(v))
					if inBody == placeholder {
						t.Errorf("%s→%s: %s is in the body %v, a placeholder %v:\n%s", from, to, b.AppendJSON(nil), inBody, placeholder, body)
					}
				}
			}
			if refs == 0 {
				t.Errorf("%s: the parse kept no document", from)
			}
		}
	}
}
