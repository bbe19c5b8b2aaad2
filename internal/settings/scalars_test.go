package settings

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestDecodeScalarsIsEncodingJSON: the request options' fast decode gives
// what encoding/json gives for every member list it takes, and declines
// (leaving the request as it was) every one it does not, so DecodeOptions
// decodes every job as before.
func TestDecodeScalarsIsEncodingJSON(t *testing.T) {
	values := []string{"0", "-0", "1", "-1", "1776000000000", "999999999999999999", "-999999999999999999",
		"9999999999999999999", "01", "1.0", "1e3", "+1", "-", "", " 1", "true", "false", "null", `"1"`, "[]", "tru"}
	keys := []string{"now_ms", "context_window_tokens", "replay_invalid", "preserve_latest_assistant_thinking", "tools_offered", "allowed_tool_names"}
	var lists [][]member
	for _, k := range keys {
		for _, v := range values {
			lists = append(lists, []member{{k, json.RawMessage(v)}})
		}
	}
	lists = append(lists,
		[]member{{"now_ms", json.RawMessage("5")}, {"tools_offered", json.RawMessage("false")}, {"context_window_tokens", json.RawMessage("200000")}},
		[]member{{"now_ms", json.RawMessage("5")}, {"now_ms", json.RawMessage("6")}},
		[]member{{"replay_invalid", json.RawMessage("true")}, {"preserve_latest_assistant_thinking", json.RawMessage("true")}},
	)
	took := 0
	for _, ms := range lists {
		var got Request
		if !decodeScalars(ms, &got) {
			if !reflect.DeepEqual(got, Request{}) {
				t.Errorf("%v: declined but set %+v", ms, got)
			}
			continue
		}
		took++
		var want Request
		if err := json.Unmarshal(objectOf(ms), &want); err != nil {
			t.Errorf("%s: fast decode took what encoding/json refuses: %v", objectOf(ms), err)
			continue
		}
		if fmt.Sprint(deref(got)) != fmt.Sprint(deref(want)) {
			t.Errorf("%s: got %v, encoding/json %v", objectOf(ms), deref(got), deref(want))
		}
	}
	if took < 20 {
		t.Fatalf("the fast decode took only %d of %d lists", took, len(lists))
	}
}

// deref is r with its pointers followed, for comparing values.
func deref(r Request) []any {
	out := []any{r.AllowedToolNames, r.ReplayInvalid}
	for _, p := range []any{r.ContextWindowTokens, r.NowMs, r.PreserveLatestAssistantThinking, r.ToolsOffered} {
		v := reflect.ValueOf(p)
		if v.IsNil() {
			out = append(out, "nil")
		} else {
			out = append(out, v.Elem().Interface())
		}
	}
	return out
}
