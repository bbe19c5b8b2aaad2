package contract

import (
	"fmt"
	"hash/maphash"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// RuleContextWindow is the rule of a request whose tokens, with the output
// it reserves, are over the target model's context window (issue 30).
const RuleContextWindow = "context_window"

// Counter counts the tokens of a request to one target model: its
// tokenizer's count where the provider's vocabulary is published, else a
// calibrated upper bound (package tokens' Counter is one).
type Counter interface {
	// Name names the tokenizer or the bound ("o200k_base").
	Name() string
	// Message is the tokens of one message, the per-message overhead of
	// the provider's wire and its images included.
	Message(m *transcript.Message) int
	// Request is the tokens of the request's fixed part: the system
	// prompt and the tool definitions (each JSON, nil when absent).
	Request(system, tools []byte) int
	// MessageBound and RequestBound are cheap upper bounds of Message and
	// Request from lengths alone: when they fit, the request fits, and
	// nothing needs counting.
	MessageBound(m *transcript.Message) int
	RequestBound(system, tools []byte) int
}

// Budget is the token budget of one request: the model's context window,
// the output reserved in it, the input limit some models have besides,
// and the counter of its tokens. A zero Window (or a nil Counter) is no
// budget: nothing is counted or checked.
type Budget struct {
	Counter  Counter
	Window   int // the context window in tokens, input and output together
	Reserve  int // the output tokens the request reserves room for
	MaxInput int // the model's own input limit (ModelLimits.MaxInput); 0: none
	memo     *Memo
}

// Memo is the counts of the messages a Budget has counted, by a hash of
// their JSON as written (maphash, 64 bits: two different messages share a
// key with a chance of 2^-64), and a buffer to write a changed one into.
// The zero Memo is empty and ready; its seed and map are made at the first
// count (most jobs count nothing).
type Memo struct {
	seed    maphash.Seed
	counts  map[uint64]int
	scratch []byte
}

// WithMemo is b remembering the count of each message it counts, by its
// bytes, in m (nil: a new Memo), so that a second count of one job (the
// fit's, then the contract's) counts only the messages whose bytes
// changed in between. A Budget with a memo belongs to one job, as does m:
// it is not safe for concurrent use.
func (b Budget) WithMemo(m *Memo) Budget {
	if m == nil {
		m = new(Memo)
	}
	b.memo = m
	return b
}

// Message is the count of m, from the memo when it has m's bytes.
func (b Budget) Message(m *transcript.Message) int {
	if b.memo == nil {
		return b.Counter.Message(m)
	}
	raw := m.Raw()
	if m.Changed() {
		b.memo.scratch = m.AppendJSON(b.memo.scratch[:0])
		raw = b.memo.scratch
	}
	if b.memo.counts == nil {
		b.memo.seed, b.memo.counts = maphash.MakeSeed(), map[uint64]int{}
	}
	key := maphash.Bytes(b.memo.seed, raw)
	n, ok := b.memo.counts[key]
	if !ok {
		n = b.Counter.Message(m)
		b.memo.counts[key] = n
	}
	return n
}

// Active reports whether the budget bounds anything.
func (b Budget) Active() bool { return b.Window > 0 && b.Counter != nil }

// Room is the tokens the request's input may hold: the window less the
// reserve, and at most MaxInput when the model has one.
func (b Budget) Room() int {
	return ModelLimits{ContextWindow: b.Window, MaxInput: b.MaxInput}.InputBudget(b.Reserve)
}

// Count is a request's token count.
type Count struct {
	Fixed    int   // the system prompt and the tools (Counter.Request)
	Messages []int // each message's tokens; nil when the bound proved the fit
	Total    int   // Fixed plus every message; the bound when Messages is nil
}

// CountRequest counts the request of msgs with the fixed part system and
// tools no further than it must to tell whether it fits. The cheap upper
// bound comes first (Counter.MessageBound and RequestBound, from lengths
// alone); when it is over the room, exact counts replace the bounds from
// the newest message back, and stop as soon as the sum (exact for the
// newest messages, bounds for the rest) is within the room, which proves
// the fit since no message counts above its bound. Then the Count holds
// that sum and no per-message figures, and counted is false. A request
// over the room even so (the newest messages' exact counts alone are, or
// every message is counted) is counted whole (counted true): every
// message's tokens, the ones already counted from the memo.
func (b Budget) CountRequest(msgs []*transcript.Message, system, tools []byte) (Count, bool) {
	room := b.Room()
	fixed := b.Counter.RequestBound(system, tools)
	total := fixed
	for _, m := range msgs {
		total += b.Counter.MessageBound(m)
	}
	if total <= room {
		return Count{Total: total}, false
	}
	exact := b.Counter.Request(system, tools)
	total += exact - fixed
	for i := len(msgs) - 1; i >= 0 && total > room && exact <= room; i-- {
		// the bound again, not kept from the pass above: a history that
		// fits by its bounds (most) then needs no slice of them
		n := b.Message(msgs[i])
		total += n - b.Counter.MessageBound(msgs[i])
		exact += n
	}
	if total <= room {
		return Count{Total: total}, false
	}
	return b.Count(msgs, system, tools), true
}

// Count counts the request of msgs with the fixed part system and tools,
// every message (from the memo, when it has one, for a message counted
// before with the same bytes).
func (b Budget) Count(msgs []*transcript.Message, system, tools []byte) Count {
	c := Count{Fixed: b.Counter.Request(system, tools), Messages: make([]int, len(msgs))}
	c.Total = c.Fixed
	for i, m := range msgs {
		c.Messages[i] = b.Message(m)
		c.Total += c.Messages[i]
	}
	return c
}

// Figures says a request's tokens against the budget in one line:
// "tokens: 1234 of 168000 (o200k_base; a 200000-token window, 32000
// reserved for output): fits" (or "over").
func (b Budget) Figures(tokens int) string {
	verdict := "fits"
	if tokens > b.Room() {
		verdict = "over"
	}
	return fmt.Sprintf("tokens: %d of %d (%s; a %d-token window, %d reserved for output): %s",
		tokens, b.Room(), b.Counter.Name(), b.Window, b.Reserve, verdict)
}

// Over says of a request of tokens tokens that it is over the budget: the
// count, the tokenizer, the reserve and the window.
func (b Budget) Over(tokens int) string {
	if b.MaxInput > 0 && b.MaxInput < b.Window-b.Reserve {
		return fmt.Sprintf("%d tokens (%s) > the %d-token input limit (a %d-token context window, %d reserved for output)",
			tokens, b.Counter.Name(), b.MaxInput, b.Window, b.Reserve)
	}
	return fmt.Sprintf("%d tokens (%s) + %d reserved for output = %d > the %d-token context window",
		tokens, b.Counter.Name(), b.Reserve, tokens+b.Reserve, b.Window)
}

// CheckWindow is the contract's last rule: it adds a RuleContextWindow
// violation to r when the request of msgs with system and tools is over
// the budget, and returns the request's tokens (the cheap bound when that
// proved the fit). An inactive budget checks nothing.
func CheckWindow(r *Result, b Budget, msgs []*transcript.Message, system, tools []byte) int {
	if !b.Active() {
		return 0
	}
	c, _ := b.CountRequest(msgs, system, tools)
	CheckTokens(r, b, c.Total)
	return c.Total
}

// CheckTokens adds a RuleContextWindow violation to r when a request of
// tokens tokens is over the budget.
func CheckTokens(r *Result, b Budget, tokens int) {
	if tokens > b.Room() {
		r.add(RuleContextWindow, "messages", "%s", b.Over(tokens))
	}
}

// FixedParts are the bytes of a request's fixed part as the job gives them:
// its system prompt (the option system, raw JSON) and its tools (the
// option tools, as JSON), each nil when absent.
func FixedParts(o transcript.Options) (system, tools []byte) {
	if len(o.Tools) > 0 {
		tools, _ = transcript.Marshal(o.Tools) // plain structs of strings and raw JSON always marshal
	}
	return o.System, tools
}
