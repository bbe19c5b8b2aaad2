package toolcalls

import (
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
)

// fuzzSettings gives the fuzz targets an allow-list, so its paths are reached.
var fuzzSettings = stage.Settings{Request: settings.Request{AllowedToolNames: []string{"read", "edit", "exec"}}}

// idSeeds seed FuzzToolCallIDs: the §5 id vectors and the shapes the
// resolver distinguishes.
var idSeeds = []string{
	`[{"role":"assistant","content":[{"type":"toolCall","id":"call|item:123","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call|item:123","content":"ok"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"call_a|b","name":"read","arguments":{}},{"type":"toolCall","id":"call_a:b","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_a|b","content":"one"},{"role":"toolResult","toolCallId":"call_a:b","content":"two"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}},{"type":"toolCall","id":"edit:22","name":"edit","arguments":{}}]},{"role":"toolResult","toolCallId":"edit:22","toolUseId":"edit:22","content":"one"},{"role":"toolResult","toolCallId":"edit:22","content":"two"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"toolu_01AbC","name":"read","arguments":{}},{"type":"toolCall","id":"call_1|fc_2","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_01AbC","content":"a"},{"role":"toolResult","toolCallId":"call_1|fc_2","content":"b"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"call1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call1","content":"ok"}]`,
	`[{"role":"toolResult","toolCallId":"call_x","content":"late"},null,{"role":"assistant","content":[{"type":"toolCall","id":"call_x","name":"read","arguments":{}}]},{"role":"user","content":"u"},{"role":"toolResult","call_id":" call_x ","content":"x"}]`,
	`[{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"toolu_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","content":"a"},{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"toolu_1","name":"write","arguments":{}}]},{"role":"toolResult","toolCallId":"toolu_1","isError":true,"details":{"openclawSyntheticMissingToolResult":true},"content":"x"},{"role":"toolResult","toolCallId":"toolu_1","content":"real"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"call_abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc","content":"1"},{"role":"assistant","content":[{"type":"toolCall","id":"call_abc","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_abc","content":"2"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"functions.read:0","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"functions.read:0","content":"ok"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"?"}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"call_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|fc_1","name":"read","arguments":{}}]},{"role":"toolResult","toolCallId":"call_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|fc_1","content":"a"}]`,
}

// inputSeeds seed FuzzToolCallInputs: the §5 input vectors.
var inputSeeds = []string{
	`[{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"c1","name":"read"}]}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bad name","arguments":{}},{"type":"toolCall","id":"c2","name":" read ","arguments":{},"x":1}]}]`,
	`[{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"Write","arguments":{}}]},{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"READ","arguments":{}}]}]`,
	`[{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"EqQ"},{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"toolCall","id":"c2","name":"bad name","arguments":{}}]},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`,
	`[{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"p":1},"partialJson":"{\"p\":1}"}]}]`,
	`[null,"x",{"role":"assistant","content":[{"type":"tool_use","call_id":"c9","name":"read","input":{}},{"type":"function_call","id":" ","name":"read","input":{}}]}]`,
	`[{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"c1","name":"sessions_spawn","arguments":{"attachments":[{"name":"a"}]}}]},{"role":"user","content":"u"},{"role":"toolResult","toolCallId":"c1","content":"ok"}]`,
}
