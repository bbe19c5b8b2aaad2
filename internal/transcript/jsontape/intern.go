package jsontape

// internKey returns the common member names as the program's own string
// constants. Rules look members up by these names many times per message;
// an interned key compares equal to the caller's literal without reading
// the input bytes it was decoded from (runtime.memequal sees the same
// pointer; the linker keeps one copy of each string literal), so a lookup
// touches no cold input memory.
func internKey(key string) string {
	if id := keyID(key); id != 0 {
		return KeyNames[id]
	}
	return key
}

// KeyNames are the member names internKey knows, each a number on the tape
// (Member.KeyID); index 0 is no name. Find compares these numbers, so a
// lookup of a common member reads no input byte.
var KeyNames = [...]string{"", "role", "content", "type", "text", "id", "name", "data", "timestamp", "toolName", "toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id", "usage", "mimeType", "thinking", "thinkingSignature", "signature", "textSignature", "provider", "api", "model", "isError", "is_error", "details", "summary", "stopReason", "errorMessage", "input", "arguments", "partialJson", "cost", "redacted", "customType", "thought_signature", "provenance", "seq", "message", "responseId"}

// Node.Keys has a bit per KeyNames entry.
var _ = [64 - len(KeyNames)]struct{}{}

// keyID returns the index of key in KeyNames, or 0.
func keyID(key string) uint8 {
	switch key {
	case "role":
		return 1
	case "content":
		return 2
	case "type":
		return 3
	case "text":
		return 4
	case "id":
		return 5
	case "name":
		return 6
	case "data":
		return 7
	case "timestamp":
		return 8
	case "toolName":
		return 9
	case "toolCallId":
		return 10
	case "toolUseId":
		return 11
	case "tool_call_id":
		return 12
	case "tool_use_id":
		return 13
	case "callId":
		return 14
	case "call_id":
		return 15
	case "usage":
		return 16
	case "mimeType":
		return 17
	case "thinking":
		return 18
	case "thinkingSignature":
		return 19
	case "signature":
		return 20
	case "textSignature":
		return 21
	case "provider":
		return 22
	case "api":
		return 23
	case "model":
		return 24
	case "isError":
		return 25
	case "is_error":
		return 26
	case "details":
		return 27
	case "summary":
		return 28
	case "stopReason":
		return 29
	case "errorMessage":
		return 30
	case "input":
		return 31
	case "arguments":
		return 32
	case "partialJson":
		return 33
	case "cost":
		return 34
	case "redacted":
		return 35
	case "customType":
		return 36
	case "thought_signature":
		return 37
	case "provenance":
		return 38
	case "seq":
		return 39
	case "message":
		return 40
	case "responseId":
		return 41
	}
	return 0
}

// KindValues are the roles and block types of spec §1.2 and §1.3 (legacy
// aliases included) a tape records as a number (Node.KindValue); index 0
// is no value.
var KindValues = [...]string{"", "user", "assistant", "toolResult", "compactionSummary", "branchSummary", "custom", "tool",
	"text", "image", "thinking", "redacted_thinking", "toolCall", "toolUse", "functionCall", "tool_call", "tool_use", "function_call", "video"}

// kindValue returns the index of s in KindValues, or 0.
func kindValue(s string) uint8 {
	for i := 1; i < len(KindValues); i++ {
		if KindValues[i] == s {
			return uint8(i)
		}
	}
	return 0
}
