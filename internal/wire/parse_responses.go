package wire

import (
	"bytes"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// responses reads an OpenAI Responses body: instructions, input (a string,
// or items) and tools. Consecutive assistant items (message, reasoning,
// function_call) are one assistant turn. For a Responses target the items'
// ids are kept where pi-ai keeps them, so renderResponses writes them back:
// an output message's id as its text's textSignature, a reasoning item as a
// thinking block whose thinkingSignature is the item (id, summary,
// encrypted_content) and whose text is the summary, and a function_call's
// item id as the second half of the call id "call_…|fc_…" (spec §3.8.3).
// For another target the reasoning and the ids are dropped and counted. A
// compaction item (OpenAI's encrypted summary of the turns before it, from
// responses/compact) is kept whole for a Responses target, as a
// compactionSummary message whose "compaction" member is the item; no
// other target can read it, so for them it is dropped and counted
// (compaction).
// system and developer messages become the system prompt after
// instructions.
func (p *parser) responses(o *transcript.Object) error {
	p.systemText(str(o, "instructions"))
	input, ok := o.Get("input")
	if !ok {
		return fmt.Errorf("request.input is missing")
	}
	if isString(input) {
		at := p.openUser()
		p.out = textBlock(p.out, input, nil)
		p.closeUser(at)
	} else {
		err := p.eachItemNext(o, "input", func(it *transcript.Object, next []byte) {
			if typ, _ := it.String("type"); typ == "reasoning" && next != nil && !p.responsesCarried(next) {
				p.drop(LossReasoning) // its following item is dropped: see responsesCarried
				return
			}
			p.responsesItem(it)
		})
		if err != nil {
			return err
		}
	}
	p.functionTools(field(o, "tools"), false)
	return nil
}

// responsesCarried reports whether the model has a place for the input
// item raw: a message, a reasoning item, a function call or its output, a
// compaction item.
// Every other item (hosted-tool calls such as web_search_call,
// file_search_call, mcp_call, code_interpreter_call; item references) is
// dropped and counted, and so is the reasoning item right before it, for
// every target, Responses included: a reasoning item belongs to the output
// item it produced, and OpenAI refuses it without that item ("Item
// 'rs_…' of type 'reasoning' was provided without its required following
// item": vercel/ai#7099 with web search, continuedev/continue#8933). The
// chain's rule for a standalone reasoning item (spec §3.8.2) cannot see
// this: after the dropped item the turn goes on with a message or a call,
// which is not the reasoning's own. Keeping the pair instead would need
// hosted-tool items in the message model, which has no place for them.
func (p *parser) responsesCarried(raw []byte) bool {
	it, _ := p.object(raw)
	typ, _ := it.String("type")
	role, _ := it.String("role")
	switch typ {
	case "message", "reasoning", "function_call", "function_call_output", "compaction":
		return true
	}
	return typ == "" && role != ""
}

// responsesItem reads one input item.
func (p *parser) responsesItem(it *transcript.Object) {
	typ, _ := it.String("type")
	role, _ := it.String("role")
	switch {
	case typ == "message" || typ == "" && role != "":
		content := field(it, "content")
		switch role {
		case "system", "developer":
			p.systemContent(content)
		case "assistant":
			p.openAssistant()
			var sig []byte
			if id := str(it, "id"); id != nil && bytes.HasPrefix(id, []byte(`"msg_`)) && p.keep(LossItemID) {
				sig = id
			}
			if isString(content) {
				p.out = textBlock(p.out, content, member(nil, "textSignature", sig))
			}
			for _, raw := range p.array(content) {
				b, _ := p.object(raw)
				t, _ := b.String("type")
				text := str(&b, "text")
				if t == "refusal" {
					text = str(&b, "refusal")
				}
				if text == nil {
					p.drop(LossUnknown)
					continue
				}
				p.out = textBlock(p.out, text, member(nil, "textSignature", sig))
			}
		default:
			at := p.openUser()
			p.out = p.responsesParts(p.out, content)
			p.closeUser(at)
		}
	case typ == "reasoning":
		if !p.keep(LossReasoning) {
			return
		}
		p.out = p.reasoningBlock(p.turn(), it)
	case typ == "function_call":
		callID, name := str(it, "call_id"), str(it, "name")
		if callID == nil || name == nil {
			p.drop(LossUnknown)
			return
		}
		p.openAssistant()
		id := callID
		if item := str(it, "id"); item != nil && p.keep(LossItemID) {
			id = joinCallID(callID, item)
			if p.fullCallID == nil {
				p.fullCallID = map[string][]byte{}
			}
			p.fullCallID[string(callID)] = id
		}
		p.call(id, name, jsonArguments(field(it, "arguments")), nil)
	case typ == "function_call_output":
		callID := str(it, "call_id")
		if callID == nil {
			callID = []byte(`""`)
		}
		id := callID
		if full, ok := p.fullCallID[string(callID)]; ok {
			id = full
		}
		p.openResult(id, nil)
		p.out = p.responsesParts(p.out, field(it, "output"))
		p.closeResult(false, nil)
	case typ == "compaction":
		if p.keep(LossCompaction) {
			p.flushAssistant()
			p.message(transcript.RoleCompactionSummary)
			p.out = append(p.out, `,"compaction":`...)
			p.out = it.AppendJSON(p.out)
			p.out = append(p.out, '}')
		}
	case typ == "item_reference":
		p.drop(LossUnknown)
	default: // web_search_call, file_search_call, computer_call, code_interpreter_call, mcp_*, ...
		p.drop(LossServerTool)
	}
}

// joinCallID is pi-ai's stored call id "call_…|fc_…" of a call_id and an
// item id (raw JSON strings), remembered so that the output that answers
// call_id gets the same id.
func joinCallID(callID, item []byte) []byte {
	id := make([]byte, 0, len(callID)+len(item))
	id = append(id, callID[:len(callID)-1]...)
	id = append(id, '|')
	return append(id, item[1:]...)
}

// reasoningBlock appends a reasoning item as pi-ai keeps it: a thinking block of
// the summary texts, with the item (id, type, summary, encrypted_content)
// as its thinkingSignature.
func (p *parser) reasoningBlock(dst []byte, it *transcript.Object) []byte {
	var texts [][]byte
	summary := field(it, "summary")
	for _, raw := range p.array(summary) {
		s, _ := p.object(raw)
		if t := str(&s, "text"); t != nil {
			texts = append(texts, t)
		}
	}
	item := []byte(`{"type":"reasoning"`)
	item = member(item, "id", field(it, "id"))
	if summary == nil {
		summary = []byte("[]")
	}
	item = member(item, "summary", summary)
	item = member(item, "encrypted_content", str(it, "encrypted_content"))
	item = append(item, '}')
	text := appendJoined(nil, texts)
	return thinkingBlock(dst, text, "thinkingSignature", transcript.JSONString(string(item)))
}

// responsesParts appends the blocks of a user content or a function output:
// a string, or input_text, input_image (a data URL, a URL or a file_id) and
// input_file parts.
func (p *parser) responsesParts(dst, content []byte) []byte {
	if isString(content) {
		return textBlock(dst, content, nil)
	}
	for _, raw := range p.array(content) {
		b, _ := p.object(raw)
		switch t, _ := b.String("type"); t {
		case "input_text", "output_text", "text":
			if text := str(&b, "text"); text != nil {
				dst = textBlock(dst, text, nil)
			}
		case "input_image":
			var ok bool
			if dst, ok = urlOrData(dst, str(&b, "image_url"), nil, true); !ok {
				if id := str(&b, "file_id"); id != nil {
					dst, ok = refBlock(dst, transcript.SourceFileID, id, nil, nil, true), true
				}
			}
			if !ok {
				p.drop(LossImageSource)
			}
		case "input_file":
			dst = p.responsesFile(dst, &b)
		case "input_audio":
			p.drop(LossAudio)
		default:
			p.drop(LossUnknown)
		}
	}
	return dst
}

// responsesFile appends an input_file part as a document: file_data (a data
// URL, or bare base64, taken as a PDF), file_url (a URL, or a data URL) or
// file_id, with filename as its name.
func (p *parser) responsesFile(dst []byte, b *transcript.Object) []byte {
	name := str(b, "filename")
	if data := str(b, "file_data"); data != nil {
		if dst, ok := dataURLBlock(dst, data, name); ok {
			return dst
		}
		return fileBlock(dst, data, []byte(`"application/pdf"`), name, nil)
	}
	if dst, ok := urlOrData(dst, str(b, "file_url"), name, false); ok {
		return dst // a data URL in file_url (strands) is the file's bytes
	}
	if id := str(b, "file_id"); id != nil {
		return refBlock(dst, transcript.SourceFileID, id, nil, name, false)
	}
	p.drop(LossDocument)
	return dst
}
