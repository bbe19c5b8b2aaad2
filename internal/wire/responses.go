package wire

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// renderResponses writes an OpenAI Responses body:
// {"instructions":...,"input":[items],"tools":[...]}.
//
// Items, in history order: a user turn is a message item with input_text
// and input_image (data URL) parts; an assistant text is a message item, in
// its output form (id, status, output_text) when its textSignature names the
// output message it came from, otherwise the plain {role, content} form;
// OpenAI thinking (a thinkingSignature holding a reasoning item with an rs_
// id) is that reasoning item (id, summary, encrypted_content); a call is a
// function_call item whose call_id and id are the two halves of an
// OpenClaw "call_…|fc_…" id; a result is a function_call_output with its
// text as the output, or input_text / input_image parts when it has images.
// A compaction item (a compactionSummary message's "compaction") is
// written as it came, where it stands. Other thinking is not sent:
// Responses accepts only its own reasoning
// items. For a GitHub Copilot target (copilot) those are Copilot's, whose
// ids are base64 (contract.CopilotItemID), as well.
func renderResponses(dst []byte, turns []turn, sys [][]byte, tools []transcript.Tool, copilot bool) []byte {
	dst = append(dst, '{')
	if sys != nil {
		dst = append(dst, `"instructions":`...)
		dst = appendJoined(dst, sys)
		dst = append(dst, ',')
	}
	dst = append(dst, `"input":[`...)
	first := true
	for i := range turns {
		t := &turns[i]
		switch t.role {
		case roleUser:
			for _, p := range t.parts {
				if p.kind == partCompaction {
					dst = comma(dst, &first)
					dst = append(dst, p.raw...)
				}
			}
			if !t.hasKind(partText) && !t.hasKind(partImage) && !t.hasKind(partMedia) {
				continue
			}
			dst = comma(dst, &first)
			dst = append(dst, `{"type":"message","role":"user","content":`...)
			dst = responsesInputParts(dst, t.parts)
			dst = append(dst, '}')
		case roleAssistant:
			for _, p := range t.parts {
				dst = responsesAssistantItem(dst, p, copilot, &first)
			}
		case roleResult:
			dst = comma(dst, &first)
			callID, _ := splitCallID(t.callID)
			dst = append(dst, `{"type":"function_call_output","call_id":`...)
			dst = append(dst, callID...)
			dst = append(dst, `,"output":`...)
			if t.hasKind(partImage) || t.hasKind(partMedia) {
				dst = responsesInputParts(dst, t.parts)
			} else {
				dst = appendJoined(dst, texts(t.parts))
			}
			dst = append(dst, '}')
		}
	}
	dst = append(dst, ']')
	if len(tools) > 0 {
		dst = append(dst, `,"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":"function","name":`...)
			dst = transcript.AppendString(dst, t.Name)
			if t.Description != "" {
				dst = append(dst, `,"description":`...)
				dst = transcript.AppendString(dst, t.Description)
			}
			// strict defaults to true in Responses, which a schema not
			// written for strict mode fails; the job's schema is taken as it is.
			dst = append(dst, `,"parameters":`...)
			dst = append(dst, toolSchema(t)...)
			dst = append(dst, `,"strict":false}`...)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// responsesInputParts writes input_text, input_image and input_file parts.
func responsesInputParts(dst []byte, parts []part) []byte {
	dst = append(dst, '[')
	first := true
	for _, p := range parts {
		p = carried(p, OpenAIResponses, false)
		switch p.kind {
		case partMedia:
			dst = comma(dst, &first)
			dst = responsesMedia(dst, p)
		case partText:
			dst = comma(dst, &first)
			dst = append(dst, `{"type":"input_text","text":`...)
			dst = append(dst, p.text...)
			dst = append(dst, '}')
		case partImage:
			dst = comma(dst, &first)
			dst = append(dst, `{"type":"input_image","image_url":`...)
			dst = appendDataURL(dst, p.mime, p.data)
			dst = append(dst, `,"detail":"auto"}`...)
		}
	}
	return append(dst, ']')
}

// responsesMedia writes an input_image by image_url or file_id, or an
// input_file by file_data (a data URL, with its filename), file_url or
// file_id.
func responsesMedia(dst []byte, p part) []byte {
	key := "file_data"
	switch p.src {
	case transcript.SourceURL:
		key = "file_url"
	case transcript.SourceFileID:
		key = "file_id"
	}
	if p.isImage() {
		dst = append(dst, `{"type":"input_image","`...)
		if p.src == transcript.SourceURL {
			key = "image_url"
		}
		dst = append(dst, key+`":`...)
		dst = append(dst, p.data...)
		return append(dst, `,"detail":"auto"}`...)
	}
	dst = append(dst, `{"type":"input_file"`...)
	name := mediaName(p)
	if name == nil && p.src == transcript.SourceData {
		name = []byte(`"document"`) // file_data needs a filename
	}
	dst = member(dst, "filename", name)
	dst = append(dst, `,"`+key+`":`...)
	if p.src == transcript.SourceData {
		dst = appendDataURL(dst, p.mime, p.data)
	} else {
		dst = append(dst, p.data...)
	}
	return append(dst, '}')
}

// responsesAssistantItem writes the item of one assistant part; copilot
// admits Copilot's reasoning items (reasoningItem).
func responsesAssistantItem(dst []byte, p part, copilot bool, first *bool) []byte {
	switch p.kind {
	case partText:
		dst = comma(dst, first)
		if id := outputMessageID(p.sig); id != "" {
			dst = append(dst, `{"type":"message","role":"assistant","id":`...)
			dst = transcript.AppendString(dst, id)
			dst = append(dst, `,"status":"completed","content":[{"type":"output_text","text":`...)
			dst = append(dst, p.text...)
			return append(dst, `,"annotations":[]}]}`...)
		}
		dst = append(dst, `{"type":"message","role":"assistant","content":`...)
		dst = append(dst, p.text...)
		return append(dst, '}')
	case partThinking:
		item, ok := reasoningItem(p.sig, copilot)
		if !ok {
			return dst
		}
		dst = comma(dst, first)
		dst = append(dst, `{"type":"reasoning","id":`...)
		dst = transcript.AppendString(dst, item.ID)
		dst = append(dst, `,"summary":`...)
		if len(item.Summary) > 0 {
			dst = append(dst, item.Summary...)
		} else {
			dst = append(dst, `[]`...)
		}
		if item.EncryptedContent != nil {
			dst = append(dst, `,"encrypted_content":`...)
			dst = transcript.AppendString(dst, *item.EncryptedContent)
		}
		return append(dst, '}')
	case partCall:
		dst = comma(dst, first)
		callID, itemID := splitCallID(p.id)
		dst = append(dst, `{"type":"function_call","call_id":`...)
		dst = append(dst, callID...)
		if itemID != nil {
			dst = append(dst, `,"id":`...)
			dst = append(dst, itemID...)
		}
		dst = append(dst, `,"name":`...)
		dst = append(dst, p.name...)
		dst = append(dst, `,"arguments":`...)
		dst = appendEncodedJSON(dst, p.args)
		return append(dst, '}')
	}
	return dst
}

// splitCallID splits an OpenClaw Responses call id "call_X|fc_Y" into its
// call_id and item id as contract.SplitCallItem does (spec §3.8.3), so the
// contract checks what is sent; an id without an fc_ item half is the
// call_id alone (itemID nil).
func splitCallID(raw []byte) (callID, itemID []byte) {
	s, ok := transcript.UnquoteBytes(raw)
	if !ok {
		return raw, nil
	}
	call, item, split := contract.SplitCallItem(string(s))
	if !split {
		return raw, nil
	}
	return transcript.JSONString(call), transcript.JSONString(item)
}

// storedReasoning is the reasoning item OpenClaw keeps in thinkingSignature
// (spec §1.3, §3.8.2).
type storedReasoning struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
}

// reasoningItem reads a thinkingSignature holding an OpenAI reasoning item:
// a JSON object (as a string) with an rs_ id and type reasoning; with
// copilot, also one with a GitHub Copilot id (contract.CopilotItemID).
func reasoningItem(sig []byte, copilot bool) (storedReasoning, bool) {
	var item storedReasoning
	s, ok := transcript.UnquoteBytes(sig)
	if sig == nil || !ok || len(s) == 0 || s[0] != '{' {
		return item, false
	}
	if json.Unmarshal(s, &item) != nil || !(strings.HasPrefix(item.ID, "rs_") || copilot && contract.CopilotItemID(item.ID)) ||
		!(item.Type == "reasoning" || strings.HasPrefix(item.Type, "reasoning.")) {
		return item, false
	}
	var summary bytes.Buffer
	if len(item.Summary) > 0 && item.Summary[0] == '[' && json.Compact(&summary, item.Summary) == nil {
		item.Summary = summary.Bytes()
	} else {
		item.Summary = nil
	}
	return item, true
}

// outputMessageID reads the output message id from a textSignature: the id
// itself (msg_…) or the JSON form {"v":1,"id":…,"phase":…} (spec §1.3).
func outputMessageID(sig []byte) string {
	s, ok := transcript.UnquoteBytes(sig)
	if sig == nil || !ok {
		return ""
	}
	if len(s) > 0 && s[0] == '{' {
		var v struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(s, &v) != nil {
			return ""
		}
		s = []byte(v.ID)
	}
	if strings.HasPrefix(string(s), "msg_") {
		return string(s)
	}
	return ""
}
