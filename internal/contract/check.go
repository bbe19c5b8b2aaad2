package contract

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hygiene-dev/hygiene/internal/images"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The rules of a violation: the label of the violations metric and the keys
// of the report's counts. A fixed, bounded set.
const (
	RuleRequiredContent   = "required_content"
	RuleFirstTurn         = "first_turn"
	RuleAlternation       = "alternation"
	RuleToolCallID        = "tool_call_id"
	RuleToolName          = "tool_name"
	RuleImagesPerRequest  = "images_per_request"
	RuleImagesPerMessage  = "images_per_message"
	RuleImagePixels       = "image_pixels"
	RuleImageBytes        = "image_bytes"
	RuleRequestSize       = "request_size"
	RuleTextValidity      = "text_validity"
	RuleThinkingSignature = "thinking_signature"
	RuleToolPairing       = "tool_pairing"
	RuleImageRole         = "image_role"
	RuleDocumentPlace     = "document_place"        // a document or image by reference the wire has no place for
	RuleDocumentsPerReq   = "documents_per_request" // more documents than the request may carry
	RuleDocumentBytes     = "document_bytes"        // a document, or a request's documents, over the size limit
)

// MaxListed bounds the violations a Result lists; Counts counts them all.
const MaxListed = 100

// Violation is one fact of the contract the transcript does not meet. Path
// names the message or block (`messages[12].content[3]`), or "messages" for
// the request as a whole.
type Violation struct {
	Rule string
	Path string
	Msg  string
}

func (v Violation) String() string { return v.Path + ": " + v.Msg }

// Result is what Check found: the first MaxListed violations in message
// order (request-wide ones last), and the count of every violation by rule.
type Result struct {
	Violations []Violation
	Counts     map[string]int
	Total      int
}

// OK reports whether the transcript meets the contract.
func (r Result) OK() bool { return r.Total == 0 }

func (r *Result) add(rule, path, format string, args ...any) {
	r.Total++
	if r.Counts == nil {
		r.Counts = map[string]int{}
	}
	r.Counts[rule]++
	if len(r.Violations) < MaxListed {
		r.Violations = append(r.Violations, Violation{Rule: rule, Path: path, Msg: fmt.Sprintf(format, args...)})
	}
}

// UserSide reports whether a role reaches the provider as a user turn: user,
// and the summary and custom messages the runner sends as user messages.
func UserSide(role string) bool {
	switch role {
	case transcript.RoleUser, transcript.RoleCompactionSummary, transcript.RoleBranchSummary, transcript.RoleCustom:
		return true
	}
	return false
}

// pendingCall is a tool call waiting for its result.
type pendingCall struct {
	id         string
	msg, block int
}

// sent reports whether a message of this role reaches the provider; an
// entry of another role (or none) is not sent, so it neither starts the
// conversation nor separates two turns.
func sent(role string) bool {
	switch role {
	case transcript.RoleAssistant, transcript.RoleToolResult, transcript.RoleTool:
		return true
	}
	return UserSide(role)
}

// imageAt is one image block found by the walk.
type imageAt struct {
	msg, block int
	data       []byte // the JSON string's bytes, quotes removed (base64 needs no unescaping)
}

// Check checks a sanitized message list against c, for a model with the
// given context window (0: unknown). It walks the messages once, reading
// of each message its length for the request size (EncodedLen, when c
// bounds the size) and the bytes it must for text validity (checkText,
// checkWritten); then it reads the header of each image when the contract
// bounds their sides.
func Check(msgs []*transcript.Message, c Contract, contextWindowTokens int) Result {
	return CheckSized(msgs, c, contextWindowTokens, -1)
}

// CheckSized is Check of messages whose size the caller measured already
// (size: their JSON array's bytes, as Transcript.MessagesSize gives it),
// which it takes instead of measuring each message; a negative size is
// unknown, and Check's.
func CheckSized(msgs []*transcript.Message, c Contract, contextWindowTokens, size int) Result {
	measure := size < 0 && c.MaxRequestBytes > 0
	if measure {
		size = 2 + max(len(msgs)-1, 0)
	}
	var (
		r          Result
		imgs       []imageAt
		buf        []byte
		hasUser    bool
		seenTurn   bool // a message the runner sends has been seen
		prevAssist = -1 // the last sent message, when it is an assistant turn
		perMessage = c.Images.PerMessage
		docs       documentTally
	)
	lastAssistant := lastArrayAssistant(msgs)
	var pending []pendingCall // calls of the last assistant turn not answered yet
	unanswered := func() {
		for _, p := range pending {
			r.add(RuleToolPairing, blockPath(p.msg, p.block), "tool call %q has no tool result right after its turn", p.id)
		}
		pending = pending[:0]
	}
	for i, m := range msgs {
		changed := m.Changed()
		encoded := func() []byte { // the message's bytes in the request
			if !changed {
				return m.Raw()
			}
			buf = m.AppendJSON(buf[:0])
			return buf
		}
		if measure {
			size += m.EncodedLen()
		}
		if c.ValidText {
			switch {
			case m.HasInvalidText():
				checkText(&r, i, encoded())
			case changed && !checkWritten(&r, i, m):
				checkText(&r, i, encoded())
			}
		}
		role := m.Role()
		if UserSide(role) {
			hasUser = true
		}
		if sent(role) {
			if c.FirstTurnUser && !seenTurn && !UserSide(role) {
				r.add(RuleFirstTurn, path(i), "the first turn is %q; the target wants a user turn first", role)
			}
			if role == transcript.RoleAssistant && c.NoConsecutiveAssistants && prevAssist >= 0 {
				r.add(RuleAlternation, path(i), "assistant turn follows the assistant turn messages[%d]", prevAssist)
			}
			prevAssist = -1
			if role == transcript.RoleAssistant {
				prevAssist = i
			}
			seenTurn = true
		}
		blocks, isArray := m.Blocks()
		if c.NonEmptyContent && (role == transcript.RoleAssistant || role == transcript.RoleUser) {
			if s, ok := m.ContentString(); (isArray && len(blocks) == 0) || (ok && transcript.IsBlank(s)) {
				r.add(RuleRequiredContent, path(i), "%s turn with empty content", role)
			}
		}
		if c.ImagesInUserTurnsOnly && role == transcript.RoleAssistant {
			for bi, b := range blocks {
				if b.Type() == transcript.BlockImage {
					r.add(RuleImageRole, blockPath(i, bi), "image in an assistant turn")
				}
			}
		}
		isResult := role == transcript.RoleToolResult || role == transcript.RoleTool
		if isResult {
			id, ok := m.ResultID()
			if ok {
				checkID(&r, c, i, -1, "tool-result", id)
			}
			if c.ToolPairing {
				if k := slices.IndexFunc(pending, func(p pendingCall) bool { return p.id == id }); ok && k >= 0 {
					pending = slices.Delete(pending, k, k+1)
				} else {
					r.add(RuleToolPairing, path(i), "tool result %q answers no call of the assistant turn before it", id)
				}
			}
		} else if c.ToolPairing {
			unanswered()
		}
		inMessage := 0
		for bi, b := range blocks {
			switch t := b.Type(); {
			case t == transcript.BlockText:
				if c.NonEmptyContent && b.BlankText() {
					r.add(RuleRequiredContent, blockPath(i, bi), "blank text block")
				}
			case b.MediaKind() != "":
				docs = checkDocument(&r, c.Documents, b, i, bi, role, docs)
			case t == transcript.BlockImage:
				rawData, _ := b.Get("data")
				data, ok := transcript.UnquoteBytes(rawData)
				if !ok {
					r.add(RuleImageBytes, blockPath(i, bi), "image without string data")
					continue
				}
				inMessage++
				imgs = append(imgs, imageAt{msg: i, block: bi, data: data})
			case b.IsThinking():
				if c.SignedThinking && role == transcript.RoleAssistant && i != lastAssistant && !signed(b) {
					r.add(RuleThinkingSignature, blockPath(i, bi), "%s block without its signature in an earlier assistant turn", t)
				}
			case b.IsToolCall():
				id, _ := b.String("id")
				if c.ToolPairing && role == transcript.RoleAssistant {
					pending = append(pending, pendingCall{id: id, msg: i, block: bi})
				}
				checkID(&r, c, i, bi, "tool-call", id)
				if name, _ := b.String("name"); !c.ToolNames.Valid(name) {
					r.add(RuleToolName, blockPath(i, bi), "tool name %q %s", name, describe(c.ToolNames))
				}
			}
		}
		if perMessage > 0 && inMessage > perMessage {
			r.add(RuleImagesPerMessage, path(i), "%d images > %d per message", inMessage, perMessage)
		}
	}
	unanswered()
	checkImages(&r, c.Images, imgs, contextWindowTokens)
	if d := c.Documents; d.PerRequest > 0 && docs.count > d.PerRequest {
		r.add(RuleDocumentsPerReq, "messages", "%d documents > %d per request", docs.count, d.PerRequest)
	}
	if d := c.Documents; d.TotalDecodedBytes > 0 && docs.bytes > d.TotalDecodedBytes {
		r.add(RuleDocumentBytes, "messages", "documents of %d decoded bytes > %d per request", docs.bytes, d.TotalDecodedBytes)
	}
	switch {
	case len(msgs) == 0:
		r.add(RuleRequiredContent, "messages", "the request has no message")
	case !hasUser:
		r.add(RuleRequiredContent, "messages", "the request has no user turn")
	}
	if c.MaxRequestBytes > 0 && size > c.MaxRequestBytes {
		r.add(RuleRequestSize, "messages", "%d bytes > %d per request", size, c.MaxRequestBytes)
	}
	return r
}

// documentTally is what Check counted of a request's documents.
type documentTally struct{ count, bytes int }

// checkDocument checks a document or an image by reference at
// messages[i].content[bi]: the wire has a place for it (l.Carries; none in
// an assistant turn), and a document given by its bytes is within the size
// limit. It returns the tally with the document counted.
func checkDocument(r *Result, l DocumentLimits, b *transcript.Block, i, bi int, role string, t documentTally) documentTally {
	what := b.MediaKind()
	if role == transcript.RoleAssistant {
		r.add(RuleDocumentPlace, blockPath(i, bi), "%s in an assistant turn", what)
	} else if !l.Carries(b) {
		mime, _ := b.String("mimeType")
		r.add(RuleDocumentPlace, blockPath(i, bi), "%s by %s (%s) has no place on this wire", what, b.MediaSource(), mime)
	}
	if b.Type() != transcript.BlockDocument {
		return t
	}
	t.count++
	n := DocumentBytes(b)
	t.bytes += n
	if l.MaxDecodedBytes > 0 && n > l.MaxDecodedBytes {
		r.add(RuleDocumentBytes, blockPath(i, bi), "document %d decoded bytes > %d", n, l.MaxDecodedBytes)
	}
	return t
}

// checkID checks one stored tool-call id of a call or a result as the
// target's wire carries it (Contract.WireIDs): the call_id against
// ToolCallIDs and, on a wire that splits ids, the item id against ItemIDs.
// The id is at messages[msg], in its content block block when block >= 0;
// the path is written only for a violation.
func checkID(r *Result, c Contract, msg, block int, what, stored string) {
	at := func() string {
		if block < 0 {
			return path(msg)
		}
		return blockPath(msg, block)
	}
	call, item := c.WireIDs(stored)
	if !c.ToolCallIDs.Valid(call) {
		if call != stored {
			r.add(RuleToolCallID, at(), "%s id %q: its call_id %q %s", what, stored, call, describe(c.ToolCallIDs))
		} else {
			r.add(RuleToolCallID, at(), "%s id %q %s", what, stored, describe(c.ToolCallIDs))
		}
	}
	if item != "" && !c.ItemIDs.Valid(item) {
		r.add(RuleToolCallID, at(), "%s id %q: its item id %q %s", what, stored, item, describe(c.ItemIDs))
	}
}

// checkImages checks the images of a request against l.
func checkImages(r *Result, l ImageLimits, imgs []imageAt, contextWindowTokens int) {
	if limit := l.RequestCap(contextWindowTokens); limit > 0 && len(imgs) > limit {
		r.add(RuleImagesPerRequest, "messages", "%d images > %d per request", len(imgs), limit)
	}
	side := l.SideCap(len(imgs))
	for _, im := range imgs {
		at := blockPath(im.msg, im.block)
		if l.MaxBase64Bytes > 0 && len(im.data) > l.MaxBase64Bytes {
			r.add(RuleImageBytes, at, "image %d base64 bytes > %d", len(im.data), l.MaxBase64Bytes)
		}
		if l.MaxDecodedBytes > 0 {
			if n := decodedLen(im.data); n > l.MaxDecodedBytes {
				r.add(RuleImageBytes, at, "image %d decoded bytes > %d", n, l.MaxDecodedBytes)
			}
		}
		if side <= 0 {
			continue
		}
		w, h, err := images.Dimensions(im.data)
		if err != nil {
			r.add(RuleImagePixels, at, "image header unreadable: %v", err)
			continue
		}
		if longest := max(w, h); longest > side {
			r.add(RuleImagePixels, at, "image %d px > %d", longest, side)
		}
	}
}

// decodedLen is the decoded size of standard padded base64.
func decodedLen(data []byte) int {
	n := len(data) / 4 * 3
	if len(data)%4 == 0 {
		n -= len(data) - len(bytes.TrimRight(data, "="))
	}
	return n
}

// describe says what an identifier must be, for a violation's sentence.
func describe(l IDLimits) string {
	var parts []string
	if l.Pattern != "" {
		parts = append(parts, "does not match "+l.Pattern)
	}
	if l.MaxLen > 0 {
		parts = append(parts, fmt.Sprintf("or is over %d bytes", l.MaxLen))
	}
	if l.ExactLen > 0 {
		parts = append(parts, fmt.Sprintf("or is not %d bytes", l.ExactLen))
	}
	if len(parts) == 0 {
		return "is empty"
	}
	return strings.Join(parts, " ")
}

// checkText reports invalid UTF-8 and lone UTF-16 surrogate escapes in the
// JSON bytes of message i. Check calls it only for the messages whose bytes
// the codec has not vouched for: those a rule wrote (changed; of these it
// reads only what the rules wrote, checkWritten) and those the codec
// marked as holding invalid text (HasInvalidText: it validates every
// string of its input and marks, rather than refuses, invalid UTF-8 and lone
// surrogates). An unchanged, unmarked message is valid already, so scanning
// it again would only repeat the decoder's work (FuzzCodecMarksInvalidText
// holds the two to the same definition).
func checkText(r *Result, i int, raw []byte) {
	if !utf8.Valid(raw) {
		r.add(RuleTextValidity, path(i), "invalid UTF-8")
	}
	if at := loneSurrogate(raw); at >= 0 {
		r.add(RuleTextValidity, path(i), "lone UTF-16 surrogate %s", raw[at:at+6])
	}
}

// checkWritten is checkText for a changed message the codec vouched for
// (not HasInvalidText): the bytes of its encoding that are still its
// input's are valid, and so are the member names the encoding wrote, so
// only the values rules wrote (Message.EachWritten) are read, and the
// message is not encoded. The violations are checkText's: a lone
// surrogate lies in a value, and the first in the encoding is the first
// of its written values. It returns false, having checked nothing, for a
// message EachWritten cannot tell of (not an object).
func checkWritten(r *Result, i int, m *transcript.Message) bool {
	valid := true
	var lone []byte
	if !m.EachWritten(func(v []byte) {
		valid = valid && utf8.Valid(v)
		if lone == nil {
			if at := loneSurrogate(v); at >= 0 {
				lone = v[at : at+6]
			}
		}
	}) {
		return false
	}
	if !valid {
		r.add(RuleTextValidity, path(i), "invalid UTF-8")
	}
	if lone != nil {
		r.add(RuleTextValidity, path(i), "lone UTF-16 surrogate %s", lone)
	}
	return true
}

// loneSurrogate returns the offset of the first \uXXXX escape in JSON text
// that is a high surrogate not followed by a low one, or a low surrogate not
// preceded by a high one; -1 when there is none. It looks only at the
// places `\u` occurs (a short-needle search, fast however many other
// escapes the text holds) and counts the backslashes before each: an odd
// run means the u is escaped text ("\\u"), not an escape.
func loneSurrogate(b []byte) int {
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], []byte(`\u`))
		if j < 0 {
			return -1
		}
		at := i + j
		run := 0
		for k := at - 1; k >= 0 && b[k] == '\\'; k-- {
			run++
		}
		if run%2 == 1 { // the backslash at `at` is itself escaped
			i = at + 1
			continue
		}
		u, ok := surrogateAt(b, at)
		switch {
		case !ok:
			i = at + 2
		case u >= 0xDC00: // low without a high before it
			return at
		default:
			if low, ok := surrogateAt(b, at+6); !ok || low < 0xDC00 {
				return at
			}
			i = at + 12
		}
	}
	return -1
}

// surrogateAt reads a \uXXXX escape at b[i:] and reports its value when it
// is a surrogate (U+D800..U+DFFF).
func surrogateAt(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	v, ok := transcript.Hex4(b, i+2)
	return v, ok && v >= 0xD800 && v <= 0xDFFF
}

// signatureFields are the members that carry a thinking block's signature
// (spec §3.4.1); redacted_thinking also carries it in data.
var signatureFields = []string{"thinkingSignature", "signature", "thought_signature", "data"}

// signed reports whether a thinking block carries a non-blank signature
// (spec §3.4.3: data counts on redacted_thinking).
func signed(b *transcript.Block) bool {
	for _, k := range signatureFields {
		if k == "data" && b.Type() != transcript.BlockRedactedThinking {
			continue
		}
		if b.NonBlank(k) {
			return true
		}
	}
	return false
}

// lastArrayAssistant is the index of the last assistant with array content
// (spec §3.4.3 may keep its thinking as it is), or -1.
func lastArrayAssistant(msgs []*transcript.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role() == transcript.RoleAssistant {
			if _, ok := msgs[i].Blocks(); ok {
				return i
			}
		}
	}
	return -1
}

func path(i int) string { return fmt.Sprintf("messages[%d]", i) }

func blockPath(i, j int) string { return fmt.Sprintf("messages[%d].content[%d]", i, j) }

// Summary is the sentence of a dead letter: the first violation, then how
// many there are in all by rule.
func (r Result) Summary() string {
	if r.OK() {
		return ""
	}
	s := r.Violations[0].String()
	if r.Total == 1 {
		return s
	}
	rules := make([]string, 0, len(r.Counts))
	for rule := range r.Counts {
		rules = append(rules, rule)
	}
	slices.Sort(rules)
	for k, rule := range rules {
		rules[k] = fmt.Sprintf("%s %d", rule, r.Counts[rule])
	}
	return fmt.Sprintf("%s (%d violations: %s)", s, r.Total, strings.Join(rules, ", "))
}
