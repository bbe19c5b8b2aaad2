package jsontape

// internKey returns the common member names as the program's own string
// constants. Rules look members up by these names many times per message;
// an interned key compares equal to the caller's literal without reading
// the input bytes it was decoded from (runtime.memequal sees the same
// pointer; the linker keeps one copy of each string literal), so a lookup
// touches no cold input memory.
func internKey(key string) string {
	switch key {
	case "role":
		return "role"
	case "content":
		return "content"
	case "type":
		return "type"
	case "text":
		return "text"
	case "id":
		return "id"
	case "name":
		return "name"
	case "data":
		return "data"
	case "timestamp":
		return "timestamp"
	case "toolName":
		return "toolName"
	case "toolCallId":
		return "toolCallId"
	case "toolUseId":
		return "toolUseId"
	case "tool_call_id":
		return "tool_call_id"
	case "tool_use_id":
		return "tool_use_id"
	case "callId":
		return "callId"
	case "call_id":
		return "call_id"
	case "usage":
		return "usage"
	case "mimeType":
		return "mimeType"
	case "thinking":
		return "thinking"
	case "thinkingSignature":
		return "thinkingSignature"
	case "signature":
		return "signature"
	case "textSignature":
		return "textSignature"
	case "provider":
		return "provider"
	case "api":
		return "api"
	case "model":
		return "model"
	case "isError":
		return "isError"
	case "is_error":
		return "is_error"
	case "details":
		return "details"
	case "summary":
		return "summary"
	case "stopReason":
		return "stopReason"
	case "errorMessage":
		return "errorMessage"
	case "input":
		return "input"
	case "arguments":
		return "arguments"
	case "partialJson":
		return "partialJson"
	case "cost":
		return "cost"
	case "redacted":
		return "redacted"
	case "customType":
		return "customType"
	case "thought_signature":
		return "thought_signature"
	case "provenance":
		return "provenance"
	case "seq":
		return "seq"
	case "message":
		return "message"
	case "responseId":
		return "responseId"
	}
	return key
}
