package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/stages/toolcalls"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestProcessRendersRequest: render: request adds request_format and the
// body (after the rules: it sees the tagged message) with the job's system
// prompt and tools; the default payload has neither.
func TestProcessRendersRequest(t *testing.T) {
	job := strings.Replace(processJob, `"options":{"now_ms":5}`,
		`"options":{"now_ms":5,"render":"request","system":"Be brief.","tools":[{"name":"read","input_schema":{"type":"object"}}],"next":[{"role":"user","content":"and then?"}]}`, 1)
	out := process(t, []byte(job), nil, tagUsers)
	if !out.Ready {
		t.Fatalf("dead letter: %+v", out)
	}
	var payload struct {
		Format  string `json:"request_format"`
		Request struct {
			System   []map[string]any `json:"system"`
			Messages []map[string]any `json:"messages"`
			Tools    []map[string]any `json:"tools"`
		} `json:"request"`
	}
	if err := json.Unmarshal(out.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	r := payload.Request
	if payload.Format != "anthropic-messages" || len(r.Messages) != 3 || r.Messages[2]["role"] != "user" || r.System[0]["text"] != "Be brief." || r.Tools[0]["name"] != "read" {
		t.Fatalf("request = %s", out.Payload)
	}
	if plain := process(t, []byte(processJob), nil); strings.Contains(string(plain.Payload), `"request"`) {
		t.Fatal("the default payload carries a request")
	}
	var observed []string
	p := NewProcessor(config.Default().Limits, ResolverFor(config.Default()), Deps{Observe: func(stage string) func(time.Duration) {
		return func(time.Duration) { observed = append(observed, stage) }
	}})
	if _, err := p.Process(context.Background(), transport.Record{Value: []byte(job)}); err != nil {
		t.Fatal(err)
	}
	if len(observed) != 1 || observed[0] != StageRender {
		t.Fatalf("observed %v, want the render timing", observed)
	}
}

// TestProcessRejectsBadRenderOptions: options that cannot be rendered are
// invalid_job dead letters naming the field.
func TestProcessRejectsBadRenderOptions(t *testing.T) {
	for opt, field := range map[string]string{
		`"render":"html"`:              "options.render",
		`"system":{"a":1}`:             "options.system",
		`"tools":[{"name":""}]`:        "options.tools[0].name",
		`"tools":[{"name":"a","x":1}]`: "unknown field",
	} {
		job := strings.Replace(processJob, `"options":{"now_ms":5}`, `"options":{"now_ms":5,`+opt+`}`, 1)
		out := process(t, []byte(job), nil)
		if out.Ready || out.Code != "invalid_job" || !strings.Contains(out.Error, field) {
			t.Errorf("%s: got %+v, want invalid_job naming %s", opt, out, field)
		}
	}
}

// TestProcessBedrockRequestWithoutTools: a Bedrock Converse body whose job
// lists no tools carries its tool history as text (Converse refuses tool
// blocks without a toolConfig); with the job's tools the blocks stay and the
// tools are declared.
func TestProcessBedrockRequestWithoutTools(t *testing.T) {
	history := `"messages":[{"role":"user","content":"list it"},` +
		`{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"."}}]},` +
		`{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"a.txt"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"one file"}]}]}`
	job := func(tools string) string {
		return `{"job_id":"j1","tenant":"acme","session_id":"s1",` +
			`"target":{"provider":"amazon-bedrock","api":"bedrock-converse-stream","model":"anthropic.claude-sonnet-4"},` +
			`"options":{"now_ms":5,"render":"request"` + tools + `},` + history
	}
	asText := process(t, []byte(job("")), nil, toolcalls.ToolsAsText())
	body := string(asText.Payload)
	if !asText.Ready || strings.Contains(body, `"toolUse"`) || strings.Contains(body, `"toolConfig"`) || !strings.Contains(body, `[tool call] ls(`) {
		t.Fatalf("without tools: %s", body)
	}
	withTools := process(t, []byte(job(`,"tools":[{"name":"ls","input_schema":{"type":"object"}}]`)), nil, toolcalls.ToolsAsText())
	body = string(withTools.Payload)
	if !withTools.Ready || !strings.Contains(body, `"toolUse"`) || !strings.Contains(body, `"toolConfig"`) {
		t.Fatalf("with tools: %s", body)
	}
}
