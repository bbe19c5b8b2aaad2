package wire

import (
	"bytes"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// geminiCamel is a Gemini 2.5 body as google-genai (JS) and Google ADK
// send it: camelCase members, ADK's "adk-<uuid>" call ids, a signed
// function call, a screenshot after the function response.
const geminiCamel = `{"systemInstruction":{"role":"user","parts":[{"text":"You are a coding agent."}]},` +
	`"contents":[{"role":"user","parts":[{"text":"Open the report and show me the chart."}]},` +
	`{"role":"model","parts":[{"text":"Opening it.","thoughtSignature":"CsIBAdHtim/3qNj3Yc9D2bZLhX0Y2m9bZ7qQ5YdR2KkQv8yJ1n6mH3w4s5t6u7v8w9x0y1z2A3B4C5D6E7F8G9H0="},` +
	`{"functionCall":{"id":"adk-3f1c2a4e-8d1b-4c55-9a0e-6f2b7d9e1c3a","name":"read_file","args":{"file_path":"report.md","max_lines":200}},"thoughtSignature":"CtgBAdHtim9kX2Jf0Qm3nVwZ8p1sL4aT6yH0cE5rB7uN9oK2dG4iF6hJ8lM0qS2vX4zA6C8E0G2I4K6M8O0Q2S4U6W8Y0a2c4e6g8i0k2m4o6q8s0u2w4y6="}]},` +
	`{"role":"user","parts":[{"functionResponse":{"id":"adk-3f1c2a4e-8d1b-4c55-9a0e-6f2b7d9e1c3a","name":"read_file","response":{"output":"# Q3 report\n![chart](chart.png)"}}},` +
	`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}},` +
	`{"text":"That chart, please."}]}],` +
	`"tools":[{"functionDeclarations":[{"name":"read_file","description":"Read a file.","parametersJsonSchema":{"type":"object","properties":{"file_path":{"type":"string"},"max_lines":{"type":"integer"}},"required":["file_path"]}}]}],` +
	`"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},"generationConfig":{"temperature":0.2,"maxOutputTokens":8192,"thinkingConfig":{"includeThoughts":true}}}`

// geminiSnake is the same body as Vertex AI REST samples and the Python
// SDK's to_json_dict write it: the proto field names (snake_case) for
// every member, the keys inside args, response and the schema untouched.
var geminiSnake = strings.NewReplacer(
	`"systemInstruction"`, `"system_instruction"`, `"thoughtSignature"`, `"thought_signature"`,
	`"functionCall"`, `"function_call"`, `"functionResponse"`, `"function_response"`,
	`"inlineData"`, `"inline_data"`, `"mimeType"`, `"mime_type"`,
	`"functionDeclarations"`, `"function_declarations"`, `"parametersJsonSchema"`, `"parameters_json_schema"`,
	`"toolConfig"`, `"tool_config"`, `"functionCallingConfig"`, `"function_calling_config"`,
	`"generationConfig"`, `"generation_config"`, `"maxOutputTokens"`, `"max_output_tokens"`,
	`"thinkingConfig"`, `"thinking_config"`, `"includeThoughts"`, `"include_thoughts"`,
).Replace(geminiCamel)

// TestGeminiProtoNames: a Gemini body written with the proto field names
// (snake_case) reads as the same body written with the JSON names, for a
// Gemini target (signatures kept) and for another (signatures dropped),
// and members of both spellings in one body read alike. Issue 29 item 3:
// on 0988e1e the snake_case body lost its call, result and image and came
// back with dropped_unknown_part.
func TestGeminiProtoNames(t *testing.T) {
	src := transcript.Target{Provider: "google", API: "google-generative-ai", Model: "gemini-2.5-pro"}
	mixed := strings.Replace(geminiCamel, `"functionResponse"`, `"function_response"`, 1)
	mixed = strings.Replace(mixed, `"mimeType"`, `"mime_type"`, 1)
	for _, target := range []Format{GeminiContents, AnthropicMessages} {
		want, err := Parse(GeminiContents, []byte(geminiCamel), src, target)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(want.Messages, []byte(`"type":"toolCall"`)); n != 1 {
			t.Fatalf("the camelCase body gives %d calls, want 1: %s", n, want.Messages)
		}
		for name, body := range map[string]string{"snake_case": geminiSnake, "mixed": mixed} {
			got, err := Parse(GeminiContents, []byte(body), src, target)
			if err != nil {
				t.Fatalf("%s for %s: %v", name, target, err)
			}
			if string(got.Messages) != string(want.Messages) {
				t.Errorf("%s for %s: messages\n got %s\nwant %s", name, target, got.Messages, want.Messages)
			}
			if string(got.System) != string(want.System) || !reflect.DeepEqual(got.Tools, want.Tools) {
				t.Errorf("%s for %s: system %s tools %+v, want %s %+v", name, target, got.System, got.Tools, want.System, want.Tools)
			}
			if !maps.Equal(got.Dropped, want.Dropped) {
				t.Errorf("%s for %s: dropped %v, want %v", name, target, got.Dropped, want.Dropped)
			}
		}
	}
}
