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

// pdf is the one-catalog PDF ("%PDF-1.4 ... %%EOF") the document bodies
// attach, base64.
const pdf = "JVBERi0xLjQKMSAwIG9iajw8L1R5cGUvQ2F0YWxvZy9QYWdlcyAyIDAgUj4+ZW5kb2JqCjIgMCBvYmo8PC9UeXBlL1BhZ2VzL0tpZHNbXS9Db3VudCAwPj5lbmRvYmoKdHJhaWxlcjw8L1Jvb3QgMSAwIFI+PgolJUVPRgo="

// documentKeeps are, per format, the values (base64, URLs, file ids,
// texts) of testdata/documents/<format>.input.json, a body with every way
// the format attaches a document or an image by reference (as its SDK
// writes them), that a round trip must keep.
var documentKeeps = map[Format][]string{
	AnthropicMessages: {pdf, "The grass is green. The sky is blue.", "https://assets.anthropic.com/m/1cd9d098ac3e6467/original/Claude-3-Model-Card-October-Addendum.pdf",
		"file_011CNvxoj286tYUAZFiZMf1U", "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg", "file_011CNha8iCJcU1wXNR6q4V8w", "Notes taken at the Q3 planning meeting"},
	BedrockConverse: {pdf, "The quarterly report of the finance team", "s3://amzn-s3-demo-bucket/reports/annual.pdf", "111122223333", "Meeting notes: ship on Friday.", "s3://amzn-s3-demo-bucket/images/chart.png"},
	OpenAIChat:      {pdf, "file-6F2ksmvXxt4VdoqmHRw6kL", "https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg"},
	OpenAIResponses: {pdf, "https://www.berkshirehathaway.com/letters/2024ltr.pdf", "file-6F2ksmvXxt4VdoqmHRw6kL",
		"https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg", "file-WwqGDjdNbjHNn1k8Dy6Qxb"},
	GeminiContents: {pdf, "VGhlIGdyYXNzIGlzIGdyZWVuLg==", "https://generativelanguage.googleapis.com/v1beta/files/8t8ly1ufkdcr", "gs://cloud-samples-data/generative-ai/image/scones.jpg"},
	MistralChat:    {pdf, "6b4f29c5-0e3a-4d1b-9f2e-7c8a1d3e5b70", "https://arxiv.org/pdf/1805.04770", "https://tripfixers.com/wp-content/uploads/2019/11/eiffel-tower-with-snow.jpeg"},
}

// documentBody reads the document body of format f.
func documentBody(tb testing.TB, f Format) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "documents", string(f)+".input.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// TestDocumentRoundTrip: render_F(parse_F(B)) keeps every document and
// image by reference of B (testdata/documents/<format>.input.json), and
// both the parse and the body are the golden files
// testdata/documents/<format>.{messages,body}.json (go test -update
// rewrites; review the diff). On 0988e1e the parse dropped each of them.
func TestDocumentRoundTrip(t *testing.T) {
	for f, keep := range documentKeeps {
		t.Run(string(f), func(t *testing.T) {
			src := DefaultSource(f)
			parsed, err := Parse(f, documentBody(t, f), src, f)
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
			for _, v := range keep {
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
	for from := range documentKeeps {
		input := documentBody(t, from)
		for _, to := range Formats {
			src := DefaultSource(from)
			parsed, err := Parse(from, input, src, to)
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
