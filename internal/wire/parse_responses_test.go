package wire

import (
	"bytes"
	"maps"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// TestReasoningWithoutFollowingItem: a reasoning item whose following item
// is dropped (a hosted-tool call, an item reference) is dropped with it and
// counted, for Responses too; a reasoning item followed by an item the
// model carries is kept for Responses. Issue 29 item 5: on 0988e1e the
// reasoning before a web_search_call was kept, and OpenAI refuses it
// ("reasoning item provided without its required following item").
func TestReasoningWithoutFollowingItem(t *testing.T) {
	const (
		rsSearch = `"rs_0c3876fcd4da19ef00692a14046bc8819eba6941c05c5ab7e7"`
		rsCall   = `"rs_02a086f499d743db00698c76e01c288193801101eba700a126"`
		rsMCP    = `"rs_01245444334359c80069ae62927f9c81969b2782557f290f93"`
	)
	reasoning := func(id string) string {
		return `{"type":"reasoning","id":` + id + `,"summary":[{"type":"summary_text","text":"**Planning the lookup**"}],"encrypted_content":"gAAAAABo2Zx1Q3v8mKp9LwR4tY8vZc3sHdXq7bN2mKp9LwR4tY8vZc3sHd=="}`
	}
	body := `{"model":"gpt-5","instructions":"You are a research assistant.","input":[` +
		`{"role":"user","content":[{"type":"input_text","text":"What changed in Go 1.26, and is my config valid?"}]},` +
		reasoning(rsSearch) + `,` +
		`{"type":"web_search_call","id":"ws_0c3876fcd4da19ef00692a140a7c4c819e8c1e5d2a8c4b7f61","status":"completed","action":{"type":"search","query":"Go 1.26 release notes"}},` +
		`{"type":"message","id":"msg_0c3876fcd4da19ef00692a141d5c48819eab8c46a20e9a2b39","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Go 1.26 adds new(expr).","annotations":[]}]},` +
		reasoning(rsCall) + `,` +
		`{"type":"function_call","id":"fc_02a086f499d743db00698c76e4e1e48193b6a8a3c7b3b0c1f2","call_id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","name":"read","arguments":"{\"path\":\"config.yaml\"}"},` +
		`{"type":"function_call_output","call_id":"call_Xq7bN2mKp9LwR4tY8vZc3sHd","output":"kafka:\n  brokers: []"},` +
		reasoning(rsMCP) + `,` +
		`{"type":"mcp_call","id":"mcp_01245444334359c80069ae6297a4c88196b6c1d9e0f3a2b4c5","server_label":"docs","name":"search","arguments":"{}","output":"none"},` +
		`{"type":"message","role":"assistant","content":"It is valid."}]}`
	src := transcript.Target{Provider: "openai", API: "openai-responses", Model: "gpt-5"}
	for _, c := range []struct {
		target  Format
		kept    []string
		dropped map[string]int
	}{
		{OpenAIResponses, []string{rsCall}, map[string]int{LossReasoning: 2, LossServerTool: 2}},
		{AnthropicMessages, nil, map[string]int{LossReasoning: 3, LossServerTool: 2, LossItemID: 2}},
	} {
		p, err := Parse(OpenAIResponses, []byte(body), src, c.target)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{rsSearch, rsCall, rsMCP} {
			has := bytes.Contains(p.Messages, []byte(id[1:len(id)-1]))
			want := false
			for _, k := range c.kept {
				want = want || k == id
			}
			if has != want {
				t.Errorf("for %s: reasoning %s kept %v, want %v", c.target, id, has, want)
			}
		}
		if !maps.Equal(p.Dropped, c.dropped) {
			t.Errorf("for %s: dropped %v, want %v", c.target, p.Dropped, c.dropped)
		}
	}
}
