package wire

import "github.com/hygiene-dev/hygiene/internal/transcript"

// stringBody returns a raw JSON string without its quotes. Its escapes stay
// as they are, so it can be spliced into another JSON string (a data URL).
func stringBody(raw []byte) []byte { return raw[1 : len(raw)-1] }

// appendDataURL writes "data:<mime>;base64,<data>" from the raw JSON strings
// of an image block: the base64 is copied, never decoded.
func appendDataURL(dst, mime, data []byte) []byte {
	dst = append(dst, `"data:`...)
	dst = append(dst, stringBody(mime)...)
	dst = append(dst, `;base64,`...)
	dst = append(dst, stringBody(data)...)
	return append(dst, '"')
}

// TextSeparator joins the texts of one message where a format takes a
// single string (Chat Completions and Mistral assistant content and tool
// messages, Responses and Gemini tool output, reasoning_content, a system
// prompt of several blocks in Chat Completions and Responses): a blank
// line, so that two texts never run into one word. Where a format takes a
// list of parts, each text stays its own part.
const TextSeparator = "\n\n"

// appendJoined writes the raw JSON strings texts as one JSON string, joined
// by TextSeparator. A single text is copied as it is.
func appendJoined(dst []byte, texts [][]byte) []byte {
	switch len(texts) {
	case 0:
		return append(dst, `""`...)
	case 1:
		return append(dst, texts[0]...)
	}
	var s []byte
	for i, t := range texts {
		if i > 0 {
			s = append(s, TextSeparator...)
		}
		if b, ok := transcript.UnquoteBytes(t); ok {
			s = append(s, b...)
		}
	}
	return transcript.AppendString(dst, string(s))
}

// appendEncodedJSON writes a compact JSON value as a JSON string (OpenAI's
// function arguments are a string holding JSON). Valid compact JSON has no
// raw control characters, so only quotes and backslashes need escaping.
func appendEncodedJSON(dst, raw []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i, c := range raw {
		if c == '"' || c == '\\' {
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', c)
			start = i + 1
		}
	}
	dst = append(dst, raw[start:]...)
	return append(dst, '"')
}

// texts returns the raw text of every text part of ps.
func texts(ps []part) [][]byte {
	var out [][]byte
	for _, p := range ps {
		if p.kind == partText {
			out = append(out, p.text)
		}
	}
	return out
}

// comma appends a separator before every element but the first.
func comma(dst []byte, first *bool) []byte {
	if *first {
		*first = false
		return dst
	}
	return append(dst, ',')
}

// mimeSubtype returns "png" for "image/png" (Bedrock's image format names).
func mimeSubtype(mime []byte) []byte {
	body := stringBody(mime)
	for i, c := range body {
		if c == '/' {
			return body[i+1:]
		}
	}
	return body
}

// historyToolNames returns the names of the tools the history uses, each
// once: those its calls name in order of first use, then those only its
// results name (raw JSON strings).
func historyToolNames(turns []turn) [][]byte {
	var names [][]byte
	seen := map[string]bool{}
	add := func(name []byte) {
		if name != nil && !seen[string(name)] {
			seen[string(name)] = true
			names = append(names, name)
		}
	}
	for i := range turns {
		for _, p := range turns[i].parts {
			if p.kind == partCall {
				add(p.name)
			}
		}
	}
	for i := range turns {
		if turns[i].role == roleResult {
			add(turns[i].toolName)
		}
	}
	return names
}

// appendTexts writes each text (a raw JSON string) as open + text + "}",
// comma-separated: the system prompt's parts in the formats that take it as
// a list. cache, when not nil, holds each text's cache_control (Anthropic
// text blocks), written into its part when set.
func appendTexts(dst []byte, texts, cache [][]byte, open string) []byte {
	for i, s := range texts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, open...)
		dst = append(dst, s...)
		if i < len(cache) {
			dst = member(dst, "cache_control", cache[i])
		}
		dst = append(dst, '}')
	}
	return dst
}

// appendGroupedMessages writes "messages":[...] for the Anthropic-shaped
// formats (Anthropic Messages, Bedrock Converse): one message per group of
// groupUserTurns, an assistant group's parts as they are, a user group's
// tool results first and then its user turns' parts (both APIs want the
// results first in the user message that answers a call). block and result
// write one part or one result in the format; a group of which nothing was
// written (nothing the API can take) is left out.
func appendGroupedMessages(dst []byte, turns []turn,
	block func([]byte, part, *bool) []byte, result func([]byte, *turn, *bool) []byte) []byte {
	dst = append(dst, `"messages":[`...)
	firstMsg := true
	var content []byte
	for _, group := range groupUserTurns(turns) {
		content = content[:0]
		first := true
		roleName := "user"
		if group[0].role == roleAssistant {
			roleName = "assistant"
			for i := range group {
				for _, p := range group[i].parts {
					content = block(content, p, &first)
				}
			}
		} else {
			for i := range group {
				if group[i].role == roleResult {
					content = result(content, &group[i], &first)
				}
			}
			for i := range group {
				if group[i].role == roleUser {
					for _, p := range group[i].parts {
						content = block(content, p, &first)
					}
				}
			}
		}
		if first {
			continue
		}
		dst = comma(dst, &firstMsg)
		dst = append(dst, `{"role":"`+roleName+`","content":[`...)
		dst = append(dst, content...)
		dst = append(dst, `]}`...)
	}
	return append(dst, ']')
}

// hasToolBlocks reports whether the history holds a tool call or a tool
// result.
func hasToolBlocks(turns []turn) bool {
	for i := range turns {
		if turns[i].role == roleResult {
			return true
		}
		for _, p := range turns[i].parts {
			if p.kind == partCall {
				return true
			}
		}
	}
	return false
}

// groupUserTurns splits the history into alternating groups: each assistant
// turn alone, and each run of user and tool-result turns together, for the
// formats where one user message carries the results and what follows them.
func groupUserTurns(turns []turn) [][]turn {
	var groups [][]turn
	for i := 0; i < len(turns); {
		j := i + 1
		if turns[i].role == roleAssistant {
			for j < len(turns) && turns[j].role == roleAssistant {
				j++
			}
		} else {
			for j < len(turns) && turns[j].role != roleAssistant {
				j++
			}
		}
		groups = append(groups, turns[i:j])
		i = j
	}
	return groups
}
