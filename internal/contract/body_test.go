package contract

import (
	"strings"
	"testing"
)

// Turns of each format for the body table.
const (
	anthUser   = `{"role":"user","content":[{"type":"text","text":"What does go.mod pin?"}]}`
	anthAnswer = `{"role":"assistant","content":[{"type":"text","text":"go1.26.10"}]}`
	bedUser    = `{"role":"user","content":[{"text":"What does go.mod pin?"}]}`
	bedAnswer  = `{"role":"assistant","content":[{"text":"go1.26.10"}]}`
	chatUser   = `{"role":"user","content":"What does go.mod pin?"}`
	chatAnswer = `{"role":"assistant","content":"go1.26.10"}`
	respUser   = `{"type":"message","role":"user","content":[{"type":"input_text","text":"What does go.mod pin?"}]}`
	respAnswer = `{"type":"message","role":"assistant","content":"go1.26.10"}`
	gemUser    = `{"role":"user","parts":[{"text":"What does go.mod pin?"}]}`
	gemAnswer  = `{"role":"model","parts":[{"text":"go1.26.10"}]}`
)

// TestCheckBody: for each body rule, a good and a bad body of every format
// the rule applies to; the bad one fails that rule alone.
func TestCheckBody(t *testing.T) {
	cases := []struct {
		name   string
		f      BodyFormat
		model  string
		body   string
		broken string // the rule the body breaks; "" for a good body
	}{
		// system
		{"anthropic system", BodyAnthropic, "claude-opus-4-6", `{"system":[{"type":"text","text":"Be brief."}],"messages":[` + anthUser + `]}`, ""},
		{"anthropic blank system", BodyAnthropic, "claude-opus-4-6", `{"system":[{"type":"text","text":" \n"}],"messages":[` + anthUser + `]}`, RuleSystem},
		{"bedrock system", BodyBedrock, "us.anthropic.claude-sonnet-4-6-v1:0", `{"system":[{"text":"Be brief."}],"messages":[` + bedUser + `]}`, ""},
		{"bedrock empty system", BodyBedrock, "us.anthropic.claude-sonnet-4-6-v1:0", `{"system":[{"text":""}],"messages":[` + bedUser + `]}`, RuleSystem},

		// final turn: prefill refused, flagged, trailing white space
		{"anthropic ends with user", BodyAnthropic, "claude-opus-4-6", `{"messages":[` + anthUser + `,` + anthAnswer + `,` + anthUser + `]}`, ""},
		{"anthropic opus 4.6 prefill", BodyAnthropic, "claude-opus-4-6", `{"messages":[` + anthUser + `,` + anthAnswer + `]}`, RuleFinalTurn},
		{"anthropic model member wins", BodyAnthropic, "claude-3-7-sonnet-20250219", `{"model":"claude-sonnet-4-6","messages":[` + anthUser + `,` + anthAnswer + `]}`, RuleFinalTurn},
		{"anthropic 3.7 prefill", BodyAnthropic, "claude-3-7-sonnet-20250219", `{"messages":[` + anthUser + `,` + anthAnswer + `]}`, ""},
		{"anthropic 3.7 prefill trailing space", BodyAnthropic, "claude-3-7-sonnet-20250219",
			`{"messages":[` + anthUser + `,{"role":"assistant","content":[{"type":"text","text":"go1.26.10\n"}]}]}`, RuleFinalTurn},
		{"bedrock ends with user", BodyBedrock, "us.anthropic.claude-sonnet-4-6-v1:0", `{"messages":[` + bedUser + `]}`, ""},
		{"bedrock sonnet 4.6 prefill", BodyBedrock, "us.anthropic.claude-sonnet-4-6-v1:0", `{"messages":[` + bedUser + `,` + bedAnswer + `]}`, RuleFinalTurn},
		{"mistral ends with tool", BodyMistral, "mistral-large-latest", `{"messages":[` + chatUser + `,{"role":"tool","tool_call_id":"D681PevKs","content":"ok"}]}`, ""},
		{"mistral assistant without prefix", BodyMistral, "mistral-large-latest", `{"messages":[` + chatUser + `,` + chatAnswer + `]}`, RuleFinalTurn},
		{"mistral assistant prefix", BodyMistral, "mistral-large-latest", `{"messages":[` + chatUser + `,{"role":"assistant","content":"go","prefix":true}]}`, ""},
		{"chat gpt prefill", BodyChat, "gpt-4.1", `{"messages":[` + chatUser + `,` + chatAnswer + `]}`, ""},
		{"chat routed opus 4.6 prefill", BodyChat, "anthropic/claude-opus-4-6", `{"messages":[` + chatUser + `,` + chatAnswer + `]}`, RuleFinalTurn},
		{"responses prefill", BodyResponses, "gpt-5", `{"input":[` + respUser + `,` + respAnswer + `]}`, ""},
		{"responses routed sonnet 4.6 prefill", BodyResponses, "claude-sonnet-4-6", `{"input":[` + respUser + `,` + respAnswer + `]}`, RuleFinalTurn},
		{"gemini prefill", BodyGemini, "gemini-2.5-pro", `{"contents":[` + gemUser + `,` + gemAnswer + `]}`, ""},

		// tool names as sent, declared and called
		{"anthropic names", BodyAnthropic, "claude-opus-4-6", `{"messages":[` + anthUser + `],"tools":[{"name":"browser_open","input_schema":{"type":"object"}}]}`, ""},
		{"anthropic dotted tool", BodyAnthropic, "claude-opus-4-6", `{"messages":[` + anthUser + `],"tools":[{"name":"browser.open","input_schema":{"type":"object"}}]}`, RuleToolName},
		{"anthropic dotted call", BodyAnthropic, "claude-opus-4-6", `{"messages":[` + anthUser + `,{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01XFDUDYJgAACzvnptvVoYEL","name":"browser.open","input":{}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01XFDUDYJgAACzvnptvVoYEL","content":[{"type":"text","text":"ok"}]}]}]}`, RuleToolName},
		{"bedrock names", BodyBedrock, "anthropic.claude-3-7-sonnet-20250219-v1:0", `{"messages":[` + bedUser + `],"toolConfig":{"tools":[{"toolSpec":{"name":"read","inputSchema":{"json":{"type":"object"}}}}]}}`, ""},
		{"bedrock colon tool", BodyBedrock, "anthropic.claude-3-7-sonnet-20250219-v1:0", `{"messages":[` + bedUser + `],"toolConfig":{"tools":[{"toolSpec":{"name":"fs:read","inputSchema":{"json":{"type":"object"}}}}]}}`, RuleToolName},
		{"bedrock dotted call", BodyBedrock, "anthropic.claude-3-7-sonnet-20250219-v1:0", `{"messages":[` + bedUser + `,{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","name":"a.b","input":{}}}]},` +
			`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","content":[{"text":"ok"}]}}]}]}`, RuleToolName},
		{"chat names", BodyChat, "gpt-4.1", `{"messages":[` + chatUser + `],"tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object"}}}]}`, ""},
		{"chat long tool", BodyChat, "gpt-4.1", `{"messages":[` + chatUser + `],"tools":[{"type":"function","function":{"name":"` + strings.Repeat("x", 65) + `","parameters":{"type":"object"}}}]}`, RuleToolName},
		{"chat dotted call", BodyChat, "gpt-4.1", `{"messages":[` + chatUser + `,{"role":"assistant","tool_calls":[{"id":"call_Qm3xR7kT2pLw9vNc4HsY8aBd","type":"function","function":{"name":"a.b","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"call_Qm3xR7kT2pLw9vNc4HsY8aBd","content":"ok"}]}`, RuleToolName},
		{"mistral dotted tool", BodyMistral, "mistral-large-latest", `{"messages":[` + chatUser + `],"tools":[{"type":"function","function":{"name":"a.b","parameters":{"type":"object"}}}]}`, RuleToolName},
		{"responses names", BodyResponses, "gpt-5", `{"input":[` + respUser + `],"tools":[{"type":"function","name":"read","parameters":{"type":"object"},"strict":false},{"type":"web_search"}]}`, ""},
		{"responses slash tool", BodyResponses, "gpt-5", `{"input":[` + respUser + `],"tools":[{"type":"function","name":"a/b","parameters":{"type":"object"}}]}`, RuleToolName},
		{"responses dotted call", BodyResponses, "gpt-5", `{"input":[` + respUser + `,{"type":"function_call","call_id":"call_Qm3xR7kT2pLw9vNc4HsY8aBd","name":"a.b","arguments":"{}"},` +
			`{"type":"function_call_output","call_id":"call_Qm3xR7kT2pLw9vNc4HsY8aBd","output":"ok"}]}`, RuleToolName},
		{"gemini dotted names", BodyGemini, "gemini-2.5-pro", `{"contents":[` + gemUser + `],"tools":[{"functionDeclarations":[{"name":"browser.open"}]}]}`, ""},
		{"gemini slash tool", BodyGemini, "gemini-2.5-pro", `{"contents":[` + gemUser + `],"tools":[{"functionDeclarations":[{"name":"a/b"}]}]}`, RuleToolName},
		{"gemini long call", BodyGemini, "gemini-2.5-pro", `{"contents":[` + gemUser + `,{"role":"model","parts":[{"functionCall":{"name":"` + strings.Repeat("g", 65) + `","args":{}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"name":"g","response":{"output":"ok"}}}]}]}`, RuleToolName},

		// empty body
		{"anthropic empty", BodyAnthropic, "claude-opus-4-6", `{"messages":[]}`, RuleEmptyBody},
		{"bedrock empty", BodyBedrock, "anthropic.claude-3-7-sonnet-20250219-v1:0", `{"messages":[]}`, RuleEmptyBody},
		{"chat system only", BodyChat, "gpt-4.1", `{"messages":[{"role":"system","content":"Be brief."}]}`, RuleEmptyBody},
		{"responses empty", BodyResponses, "gpt-5", `{"input":[]}`, RuleEmptyBody},
		{"gemini empty", BodyGemini, "gemini-2.5-pro", `{"contents":[]}`, RuleEmptyBody},
		{"mistral empty", BodyMistral, "mistral-large-latest", `{"messages":[]}`, RuleEmptyBody},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CheckBody(tc.f, []byte(tc.body), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.broken == "" && !r.OK():
				t.Errorf("good body refused: %s", r.Summary())
			case tc.broken != "" && (r.Total != 1 || r.Counts[tc.broken] != 1):
				t.Errorf("want one %s violation, got %d: %s", tc.broken, r.Total, r.Summary())
			}
		})
	}
}

// TestParseBodyFormat: the request_format names and the short forms.
func TestParseBodyFormat(t *testing.T) {
	for in, want := range map[string]BodyFormat{"anthropic-messages": BodyAnthropic, "bedrock-converse": BodyBedrock,
		"openai-chat": BodyChat, "openai-chat-completions": BodyChat, "openai-responses": BodyResponses,
		"gemini": BodyGemini, "gemini-generate-content": BodyGemini, "mistral": BodyMistral} {
		if got, err := ParseBodyFormat(in); err != nil || got != want {
			t.Errorf("ParseBodyFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseBodyFormat("soap"); err == nil {
		t.Error("an unknown format is accepted")
	}
}
