package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// geminiParameters is a function's `parameters` as google-genai and Google
// ADK send it (Gemini's Schema, an OpenAPI subset): upper-case types,
// nullable, format, enum with format "enum", propertyOrdering, example.
const geminiParameters = `{"type":"OBJECT","properties":{` +
	`"file_path":{"type":"STRING","description":"Path of the file to read."},` +
	`"max_lines":{"type":"INTEGER","format":"int32","nullable":true,"example":200},` +
	`"encoding":{"type":"STRING","format":"enum","enum":["utf-8","latin-1"],"nullable":true},` +
	`"ranges":{"type":"ARRAY","items":{"type":"OBJECT","properties":{"start":{"type":"NUMBER"},"end":{"type":"NUMBER"}}}},` +
	`"follow":{"type":"BOOLEAN"},` +
	`"mode":{"any_of":[{"type":"STRING"},{"type":"INTEGER"}],"nullable":true}},` +
	`"required":["file_path"],"propertyOrdering":["file_path","max_lines","encoding","ranges","follow","mode"]}`

// geminiParametersAsJSONSchema is geminiParameters as JSON Schema.
const geminiParametersAsJSONSchema = `{"type":"object","properties":{` +
	`"file_path":{"type":"string","description":"Path of the file to read."},` +
	`"max_lines":{"type":["integer","null"],"format":"int32","examples":[200]},` +
	`"encoding":{"type":["string","null"],"format":"enum","enum":["utf-8","latin-1",null]},` +
	`"ranges":{"type":"array","items":{"type":"object","properties":{"start":{"type":"number"},"end":{"type":"number"}}}},` +
	`"follow":{"type":"boolean"},` +
	`"mode":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]}},` +
	`"required":["file_path"]}`

// TestGeminiSchemaDialect: a tool schema in Gemini's dialect is accepted
// (CheckOptions), sent to Gemini as it is in `parameters`, and to every
// other format as JSON Schema; a JSON Schema is sent as it is everywhere
// (in parametersJsonSchema for Gemini), and a dialect mix Gemini's Schema
// refuses goes to Gemini converted. Issue 29 item 1: on 0988e1e the
// upper-case schema was refused as invalid_job.
func TestGeminiSchemaDialect(t *testing.T) {
	jsonSchemaTool := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`
	mixed := `{"type":"OBJECT","properties":{"path":{"type":"STRING","nullable":true}},"additionalProperties":false}`
	mixedAsJSONSchema := `{"type":"object","properties":{"path":{"type":["string","null"]}},"additionalProperties":false}`
	cases := []struct {
		name, schema         string
		geminiMember, gemini string
		other                string
	}{
		{"gemini dialect", geminiParameters, "parameters", geminiParameters, geminiParametersAsJSONSchema},
		{"json schema", jsonSchemaTool, "parametersJsonSchema", jsonSchemaTool, jsonSchemaTool},
		{"gemini types with a JSON Schema keyword", mixed, "parametersJsonSchema", mixedAsJSONSchema, mixedAsJSONSchema},
		{"snake_case keywords", `{"type":"OBJECT","properties":{"tags":{"type":"ARRAY","items":{"type":"STRING"},"max_items":5}},"property_ordering":["tags"]}`,
			"parameters", `{"type":"OBJECT","properties":{"tags":{"type":"ARRAY","items":{"type":"STRING"},"max_items":5}},"property_ordering":["tags"]}`,
			`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"maxItems":5}}}`},
		{"nullable without a type", `{"type":"OBJECT","properties":{"v":{"description":"any value","nullable":true}}}`, "parameters",
			`{"type":"OBJECT","properties":{"v":{"description":"any value","nullable":true}}}`,
			`{"type":"object","properties":{"v":{"anyOf":[{"description":"any value"},{"type":"null"}]}}}`},
	}
	user := `{"role":"user","content":[{"type":"text","text":"read it"}],"timestamp":1776000000000}`
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tools := []transcript.Tool{{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(c.schema)}}
			for _, f := range Formats {
				if err := CheckOptions(transcript.Options{Render: RenderRequest, Tools: tools}, f); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			}
			for target, path := range map[string][]any{
				"google/google-generative-ai/gemini-2.5-pro":                                       {"tools", 0, "functionDeclarations", 0, c.geminiMember},
				"anthropic/anthropic-messages/claude-opus-4-6":                                     {"tools", 0, "input_schema"},
				"openai/openai-completions/gpt-4.1":                                                {"tools", 0, "function", "parameters"},
				"openai/openai-responses/gpt-5":                                                    {"tools", 0, "parameters"},
				"mistral/mistral-conversations/mistral-large-latest":                               {"tools", 0, "function", "parameters"},
				"amazon-bedrock/bedrock-converse-stream/anthropic.claude-3-7-sonnet-20250219-v1:0": {"toolConfig", "tools", 0, "toolSpec", "inputSchema", "json"},
			} {
				f, body := renderJSON(t, target, history(user), Request{Tools: tools})
				want := c.other
				if f == GeminiContents {
					want = c.gemini
				}
				got, _ := json.Marshal(at(body, path...))
				var w any
				_ = json.Unmarshal([]byte(want), &w)
				wantJSON, _ := json.Marshal(w)
				if string(got) != string(wantJSON) {
					t.Errorf("%s: schema\n got %s\nwant %s", f, got, wantJSON)
				}
			}
		})
	}
}

// TestJSONSchemaKeepsOrder: the conversion keeps the members' order and
// bytes of everything it does not change (property names, enum values,
// descriptions with escapes), and a JSON Schema is returned as the same
// bytes.
func TestJSONSchemaKeepsOrder(t *testing.T) {
	if got := string(toolSchema(transcript.Tool{InputSchema: json.RawMessage(geminiParameters)})); got != geminiParametersAsJSONSchema {
		t.Errorf("converted\n got %s\nwant %s", got, geminiParametersAsJSONSchema)
	}
	plain := `{"type":"object","properties":{"z_last":{"type":"string","description":"a \"quoted\" \u00e9"},"a_first":{"type":"integer"}}}`
	if got := string(toolSchema(transcript.Tool{InputSchema: json.RawMessage(plain)})); got != plain {
		t.Errorf("a JSON Schema changed\n got %s\nwant %s", got, plain)
	}
	if !strings.Contains(string(toolSchema(transcript.Tool{})), `"object"`) {
		t.Error("no schema must give the permissive object schema")
	}
}

// TestGeminiParametersRoundTrip: a google-genai body whose declaration
// gives `parameters` in Gemini's dialect comes back from the Gemini
// renderer with the same `parameters`.
func TestGeminiParametersRoundTrip(t *testing.T) {
	body := `{"contents":[{"role":"user","parts":[{"text":"read report.md"}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"read_file","description":"Read a file.","parameters":` + geminiParameters + `}]}]}`
	tg := transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-flash"}
	if got := roundTrip(t, GeminiContents, []byte(body), tg); !semanticallyEqual(t, got, []byte(body)) {
		t.Errorf("round trip differs\n got %s\nwant %s", got, body)
	}
}
