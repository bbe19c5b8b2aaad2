package turns

import "testing"

func TestBlankBlocks(t *testing.T) {
	cases := []ruleCase{
		{
			name: "V38 blank text before a tool call removed",
			in:   `[{"role":"assistant","content":[{"type":"text","text":"  "},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}]`,
			want: `[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}]`,
		},
		{
			name:   "V38 assistant with only empty text removed",
			in:     `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":""}]}]`,
			want:   `[{"role":"user","content":"q"}]`,
			report: map[string]int{"dropped": 1, "blank_text_removed": 1},
		},
		{
			name: "V38 blank tool result gets the placeholder",
			in:   `[{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"  "}]}]`,
			want: `[{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"[empty content omitted]"}]}]`,
		},
		{
			name: "user arrays: blank text removed, empty array gets the placeholder, image counts as content",
			in:   `[{"role":"user","content":[]},{"role":"user","content":[{"type":"text","text":"\t"},{"type":"image","data":"AAAA","mimeType":"image/png"}]},{"role":"user","content":"  "}]`,
			want: `[{"role":"user","content":[{"type":"text","text":"[empty content omitted]"}]},{"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]},{"role":"user","content":"  "}]`,
		},
		{
			name: "empty assistant kept when it carries providerReplay",
			in:   `[{"role":"assistant","content":[{"type":"text","text":" "}],"providerReplay":{"x":1}},{"role":"assistant","content":[]}]`,
			want: `[{"role":"assistant","content":[],"providerReplay":{"x":1}}]`,
		},
		{
			name: "video base64 canonicalised; corrupt and empty payloads replaced",
			in:   `[{"role":"user","content":[{"type":"video","data":"AA AA\nAA==","mimeType":"video/mp4","name":"v"},{"type":"video","data":"not*base64","mimeType":"video/mp4"},{"type":"video","data":"","mimeType":"video/webm"},{"type":"video","data":"AAA===","mimeType":"video/mp4"},{"type":"video","data":"!!","mimeType":"audio/ogg"}]}]`,
			want: `[{"role":"user","content":[{"type":"video","data":"AAAAAA==","mimeType":"video/mp4","name":"v"},{"type":"text","text":"[video omitted: corrupted base64 payload]"},{"type":"text","text":"[video omitted: corrupted base64 payload]"},{"type":"text","text":"[video omitted: corrupted base64 payload]"},{"type":"video","data":"!!","mimeType":"audio/ogg"}]}]`,
		},
		{
			name: "untouched messages keep their bytes",
			in:   `[{"role":"user","content":[{"type":"text","text":"a"}],"x":{ "y" : 1 }},{"role":"custom","content":[{"type":"text","text":""}]}]`,
			want: `[{"role":"user","content":[{"type":"text","text":"a"}],"x":{ "y" : 1 }},{"role":"custom","content":[{"type":"text","text":""}]}]`,
		},
	}
	runCases(t, cases, BlankBlocks())
}

func FuzzBlankBlocks(f *testing.F) {
	fuzzStage(f, []string{
		`[{"role":"assistant","content":[{"type":"text","text":"  "},{"type":"toolCall","id":"c1","name":"read","arguments":{}}]}]`,
		`[{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"  "}]},{"role":"user","content":[]}]`,
		`[{"role":"user","content":[{"type":"video","data":"AA AA","mimeType":"video/mp4"}]}]`,
	}, BlankBlocks())
}
