package wire

import (
	"encoding/base64"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// signatureSentinel is the thoughtSignature Gemini accepts on a function
// call it did not produce: "skip_thought_signature_validator", documented
// for "transferring a history from another model" in the thought-signature
// FAQ (https://ai.google.dev/gemini-api/docs/thought-signatures). The field
// is protobuf bytes, which JSON carries as base64, so the body holds the
// base64 of the sentinel's ASCII bytes, exactly what the Gen AI SDKs send
// for ThoughtSignature: []byte("skip_thought_signature_validator").
var signatureSentinel = transcript.JSONString(base64.StdEncoding.EncodeToString([]byte("skip_thought_signature_validator")))

// renderGemini writes a Gemini generateContent body:
// {"systemInstruction":{"parts":[...]},"contents":[...],"tools":[{"functionDeclarations":[...]}]}.
//
// A user turn is a user content of text, inlineData (images, and documents
// given by their bytes) and fileData (by URL) parts; an assistant
// turn is a model content: texts (with their thoughtSignature), thinking as
// thought parts when it came from a Gemini API (signed or not), and
// functionCall parts (id, name, args, thoughtSignature). Each run of tool
// results is one user content with a functionResponse per result (Gemini
// wants the responses to one step together), {"output": text} or
// {"error": text}, and the results' images and documents after them. A
// result names its call's tool (toolName, or the call's name found by id).
// Tools are declared with parametersJsonSchema, which takes the job's JSON
// Schema as it is, or with parameters for a schema in Gemini's own dialect
// (geminiSchema).
//
// Wire-only repair (sentinel): for the models that validate signatures
// (needsSignatureSentinel: Gemini 3 and later), the first functionCall part
// of each model content of the current turn (after the last user turn that
// is not only function responses) that has no thoughtSignature gets
// signatureSentinel. Gemini 3 answers 400 when that signature is missing
// ("Thought signatures": a turn's steps each need the signature on their
// first function call); calls replayed from another provider have none.
// Earlier turns are not validated and are left alone.
func renderGemini(dst []byte, turns []turn, sys [][]byte, tools []transcript.Tool, sentinel bool) []byte {
	dst = append(dst, '{')
	if sys != nil {
		dst = append(dst, `"systemInstruction":{"parts":[`...)
		dst = appendTexts(dst, sys, nil, `{"text":`)
		dst = append(dst, `]},`...)
	}
	currentTurn := 0
	names := map[string][]byte{}
	for i := range turns {
		if turns[i].role == roleUser {
			currentTurn = i + 1
		}
		for _, p := range turns[i].parts {
			if p.kind == partCall {
				names[string(p.id)] = p.name
			}
		}
	}
	dst = append(dst, `"contents":[`...)
	first := true
	var content []byte
	for i := 0; i < len(turns); i++ {
		t := &turns[i]
		content = content[:0]
		inner := true
		roleName := "user"
		switch t.role {
		case roleUser:
			for _, p := range t.parts {
				content = geminiPart(content, p, false, &inner)
			}
		case roleAssistant:
			roleName = "model"
			signFirstCall := sentinel && i >= currentTurn
			for _, p := range t.parts {
				if p.kind == partCall && signFirstCall {
					signFirstCall = false
					if p.thought == nil {
						p.thought = signatureSentinel
					}
				}
				content = geminiPart(content, p, t.fromGoogle, &inner)
			}
		case roleResult:
			j := i
			for ; j < len(turns) && turns[j].role == roleResult; j++ {
				content = geminiResponse(content, &turns[j], names, &inner)
			}
			for k := i; k < j; k++ {
				for _, p := range turns[k].parts {
					if p.kind == partImage || p.kind == partMedia {
						content = geminiPart(content, p, false, &inner)
					}
				}
			}
			i = j - 1
		}
		if inner {
			continue
		}
		dst = comma(dst, &first)
		dst = append(dst, `{"role":"`+roleName+`","parts":[`...)
		dst = append(dst, content...)
		dst = append(dst, `]}`...)
	}
	dst = append(dst, ']')
	if len(tools) > 0 {
		dst = append(dst, `,"tools":[{"functionDeclarations":[`...)
		for i, t := range tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"name":`...)
			dst = transcript.AppendString(dst, t.Name)
			if t.Description != "" {
				dst = append(dst, `,"description":`...)
				dst = transcript.AppendString(dst, t.Description)
			}
			member, schema := geminiSchema(t)
			dst = append(dst, `,"`+member+`":`...)
			dst = append(dst, schema...)
			dst = append(dst, '}')
		}
		dst = append(dst, `]}]`...)
	}
	return append(dst, '}')
}

// geminiPart writes one Part, or nothing for a part Gemini has no place for.
// fromGoogle admits thinking, as a thought part with its signature when it
// has one: Gemini gives a thought part its own signature or none (the
// turn's signature may sit on a later part), and takes its own thought
// parts back either way, as the Gen AI SDKs' chat sessions send the model's
// content back as it came.
func geminiPart(dst []byte, p part, fromGoogle bool, first *bool) []byte {
	p = carried(p, GeminiContents, false)
	switch p.kind {
	case partMedia:
		dst = comma(dst, first)
		if p.src == transcript.SourceData {
			dst = append(dst, `{"inlineData":{"mimeType":`...)
			dst = append(dst, p.mime...)
			dst = append(dst, `,"data":`...)
		} else {
			dst = append(dst, `{"fileData":{`...)
			if p.mime != nil {
				dst = append(dst, `"mimeType":`...)
				dst = append(dst, p.mime...)
				dst = append(dst, ',')
			}
			dst = append(dst, `"fileUri":`...)
		}
		dst = append(dst, p.data...)
		dst = append(dst, '}')
	case partText:
		dst = comma(dst, first)
		dst = append(dst, `{"text":`...)
		dst = append(dst, p.text...)
	case partImage:
		dst = comma(dst, first)
		dst = append(dst, `{"inlineData":{"mimeType":`...)
		dst = append(dst, p.mime...)
		dst = append(dst, `,"data":`...)
		dst = append(dst, p.data...)
		dst = append(dst, '}')
	case partThinking:
		sig := p.thought
		if sig == nil {
			sig = p.sig
		}
		if !fromGoogle {
			return dst
		}
		dst = comma(dst, first)
		dst = append(dst, `{"text":`...)
		dst = append(dst, p.text...)
		dst = append(dst, `,"thought":true`...)
		if sig != nil {
			dst = append(dst, `,"thoughtSignature":`...)
			dst = append(dst, sig...)
		}
		return append(dst, '}')
	case partCall:
		dst = comma(dst, first)
		dst = append(dst, `{"functionCall":{"id":`...)
		dst = append(dst, p.id...)
		dst = append(dst, `,"name":`...)
		dst = append(dst, p.name...)
		dst = append(dst, `,"args":`...)
		dst = append(dst, p.args...)
		dst = append(dst, '}')
	default:
		return dst
	}
	if p.thought != nil {
		dst = append(dst, `,"thoughtSignature":`...)
		dst = append(dst, p.thought...)
	}
	return append(dst, '}')
}

// geminiResponse writes a functionResponse part for one tool result.
func geminiResponse(dst []byte, t *turn, names map[string][]byte, first *bool) []byte {
	name := t.toolName
	if name == nil {
		name = names[string(t.callID)]
	}
	if name == nil {
		name = []byte(`""`)
	}
	dst = comma(dst, first)
	dst = append(dst, `{"functionResponse":{"id":`...)
	dst = append(dst, t.callID...)
	dst = append(dst, `,"name":`...)
	dst = append(dst, name...)
	if t.isError {
		dst = append(dst, `,"response":{"error":`...)
	} else {
		dst = append(dst, `,"response":{"output":`...)
	}
	dst = appendJoined(dst, texts(t.parts))
	return append(dst, `}}}`...)
}
