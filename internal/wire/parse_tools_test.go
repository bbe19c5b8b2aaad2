package wire

import (
	"maps"
	"slices"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestToolTypeDefault: a tool without "type" is a function tool, as
// Mistral's API and OpenAI-compatible servers (vLLM) default it; a tool of
// another type is still dropped and counted. Issue 29 item 2: on 0988e1e
// the Mistral client's tools were dropped as non_function_tool.
func TestToolTypeDefault(t *testing.T) {
	schema := `{"type":"object","properties":{"transaction_id":{"type":"string","description":"The transaction id."}},"required":["transaction_id"]}`
	user := `{"role":"user","content":"What's the status of my transaction T1001?"}`
	cases := []struct {
		name    string
		f       Format
		body    string
		want    []string
		dropped map[string]int
	}{
		{"mistral client, no type", MistralChat,
			`{"model":"mistral-large-latest","messages":[` + user + `],"tools":[{"function":{"name":"retrieve_payment_status","description":"Get payment status of a transaction","parameters":` + schema + `}}],"tool_choice":"auto"}`,
			[]string{"retrieve_payment_status"}, nil},
		{"vLLM chat, no type, beside a typed one", OpenAIChat,
			`{"model":"Qwen/Qwen2.5-7B-Instruct","messages":[` + user + `],"tools":[{"function":{"name":"retrieve_payment_status","parameters":` + schema + `}},{"type":"function","function":{"name":"retrieve_payment_date","parameters":` + schema + `}}]}`,
			[]string{"retrieve_payment_status", "retrieve_payment_date"}, nil},
		{"type null", MistralChat,
			`{"messages":[` + user + `],"tools":[{"type":null,"function":{"name":"retrieve_payment_status","parameters":` + schema + `}}]}`,
			[]string{"retrieve_payment_status"}, nil},
		{"responses, no type; a hosted tool still dropped", OpenAIResponses,
			`{"model":"gpt-5","input":[` + user + `],"tools":[{"name":"retrieve_payment_status","parameters":` + schema + `},{"type":"web_search_preview"}]}`,
			[]string{"retrieve_payment_status"}, map[string]int{LossToolKind: 1}},
	}
	src := transcript.Target{Provider: "mistral", API: "mistral-conversations", Model: "mistral-large-latest"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(c.f, []byte(c.body), src, c.f)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range p.Tools {
				names = append(names, tool.Name)
				if string(tool.InputSchema) != schema {
					t.Errorf("%s: schema %s", tool.Name, tool.InputSchema)
				}
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("tools %v, want %v", names, c.want)
			}
			if len(p.Dropped)+len(c.dropped) > 0 && !maps.Equal(p.Dropped, c.dropped) {
				t.Errorf("dropped %v, want %v", p.Dropped, c.dropped)
			}
		})
	}
}
