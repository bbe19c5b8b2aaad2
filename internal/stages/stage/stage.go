// Package stage defines what every hygiene rule shares: the Stage shape, the
// per-job environment a rule reads (policy, settings, report), and the Report
// that goes into the ready payload. The rules themselves live in the sibling
// packages (toolcalls, pairing, turns, media); package stages lists them in
// the order of spec §4.
//
// May import: internal/contract, internal/deadletter, internal/policy,
// internal/settings, internal/tokens, internal/transcript.
package stage

import (
	"context"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// A Stage is one hygiene rule over a parsed transcript. A rule guards itself
// on env.Policy (it returns nil at once when the policy does not enable it),
// so the stage list stays fixed and readable. It edits t in place, records
// what it changed in env.Report under its Name, and must be idempotent: a
// second run over its own output changes nothing. An error means a bug or a
// cancelled context, never bad input: bad input is repaired, not rejected.
type Stage struct {
	Name string // metric label and report key; a fixed, bounded set
	// Needs declares what the rule reads: in a job whose messages hold
	// none of these facts (transcript.Facts) it changes, reports and
	// refuses nothing, whatever the policy, so the runner skips it
	// (Skipper). Zero: the rule always runs.
	Needs transcript.Facts
	// Adds declares the facts some rule Needs that the rule may bring
	// into a job that lacked them (a synthetic tool result, a document
	// made of an image): the runner adds them to the job's facts after
	// the rule ran.
	Adds transcript.Facts
	// On, when set, is the rule's own policy guard (the test its Apply
	// starts with): false means the job's policy and settings leave the
	// rule nothing to do, so the runner skips it before its instruments.
	// Nil: the rule decides inside Apply.
	On func(env *Env) bool
	// ReadOnly declares that the rule edits nothing of the transcript (it
	// may write the report, or refuse the job): running it leaves standing
	// what the rules before it proved of the history (Env.Unedited).
	ReadOnly bool
	Apply    func(ctx context.Context, t *transcript.Transcript, env *Env) error
}

// Skipper decides, rule by rule along a chain, which rules a job skips: a
// rule whose guard (On) is off for the job, or that declared Needs the
// job's facts hold none of. It reads the
// job's facts (Transcript.Facts) once, when the first rule that declared
// Needs asks, and then keeps a superset of them: the rules that run can
// only remove what the job held, or add what they declare (Adds), and one
// that says it edited nothing (Env.NoEdit) added none of it. The zero
// Skipper is ready; one Skipper serves one job's chain.
type Skipper struct {
	facts transcript.Facts
	known bool
}

// Skip reports whether rule s has nothing to do in t: its guard (On) says
// so, or t lacks what it Needs. When it returns false the caller runs s,
// and unless s is ReadOnly every proof made before it is set aside
// (Env.Unedited): whatever runs rules must ask Skip first. env.RunAll
// skips nothing.
func (k *Skipper) Skip(s *Stage, t *transcript.Transcript, env *Env) bool {
	if k.skips(s, t, env) {
		return true
	}
	if !s.ReadOnly {
		env.editing()
	}
	return false
}

// skips is Skip's verdict.
func (k *Skipper) skips(s *Stage, t *transcript.Transcript, env *Env) bool {
	if env.RunAll {
		return false
	}
	if env.factsKnown {
		k.facts = env.facts // the rule before may have taken its Adds back (NoEdit)
	}
	if s.On != nil && !s.On(env) {
		return true
	}
	if s.Needs != 0 {
		if !k.known {
			k.facts, k.known = t.Facts(), true
		}
		if k.facts&s.Needs == 0 {
			return true
		}
	}
	env.priorFacts = k.facts
	k.facts |= s.Adds
	env.facts, env.factsKnown = k.facts, k.known
	return false
}

// Run applies the rules of chain to t in order, each unless its Skipper
// skips it, and returns the first error: the chain as the pipeline runs
// it, without the pipeline's instruments.
func Run(ctx context.Context, chain []Stage, t *transcript.Transcript, env *Env) error {
	var k Skipper
	for i := range chain {
		if k.Skip(&chain[i], t, env) {
			continue
		}
		if err := chain[i].Apply(ctx, t, env); err != nil {
			return err
		}
	}
	return nil
}

// Env is what a stage may read besides the transcript.
type Env struct {
	Policy   policy.Policy
	Settings Settings
	Report   *Report
	// ModelChanged is computed once before the chain (turns.ModelChanged,
	// spec §3.13's read at §4 step 0) and read by the Responses reasoning
	// downgrade. Stages only read it: no stage passes state to another.
	ModelChanged bool
	// Budget is the job's token budget (its target model's context
	// window, the output reserved in it, the target's token counter),
	// resolved once before the chain; an inactive Budget (no window)
	// leaves the context-window fit and its check out.
	Budget contract.Budget
	// InputMessages is how many messages the job had before the chain, so
	// a rule that finds nothing left can say what the repair removed.
	InputMessages int
	// Fanout, when set, lets a rule split the per-message work of a large
	// history into chunks that run in parallel (package fanout); nil runs
	// every rule sequentially.
	Fanout Fanout
	// RunAll makes the runner run every rule, what it Needs ignored: the
	// output must be the same, which the tests check by flipping it.
	RunAll bool
	// WindowFit is the context-window fit's count of the request as the
	// fit found it and edited nothing (Proof.Value: its tokens, the
	// cheap bound when that proved the fit), for the contract to take
	// instead of counting again while the history is unedited.
	WindowFit Proof
	// RequestSize is the request_size rule's measure of the messages'
	// bytes as they will be written (Transcript.MessagesSize, Proof.Value),
	// for the contract's size check to take instead of measuring again
	// while the history is unedited.
	RequestSize Proof
	// IDsSanitized is the early run of the tool-call id rule's proof that
	// every id is what the rule makes it (toolcalls.ToolCallIDsInImagePass,
	// Proof.Value unused): the rule is idempotent, so its later run
	// (toolcalls.ToolCallIDs, the same pass) takes the proof instead of
	// reading every call and result again while the history is unedited;
	// the later run leaves the same proof when it sanitised, for the again
	// run (toolcalls.ToolCallIDsAgain).
	IDsSanitized Proof
	// SignedTurnsKept is the again pass of §3.4.3's proof that it dropped
	// no thinking of a turn with tool calls (turns.InvalidSignaturesAgain,
	// Proof.Value unused): every turn the id rule judged a signed turn is
	// one still, so the again run of the id rule (toolcalls.ToolCallIDsAgain)
	// takes it instead of a second pass while the history is unedited.
	SignedTurnsKept Proof
	// InputsKept is the tool-call id proof's reading, in its one read of
	// every call, that the tool-call input validation
	// (toolcalls.ToolCallInputs) would leave the history as it is: the
	// validation takes it instead of reading every call again while the
	// history is unedited.
	InputsKept Proof
	// ResultsPaired is the tool-call id proof's reading, in its one read of
	// every call and result, that the pairing repair would give the
	// history back as it is (transcript.PairedCheck; Proof.Value 1 when
	// every result also carries its call's id as written): the pairing
	// rules take it instead of reading them again while the history is
	// unedited.
	ResultsPaired Proof
	// ResultIDsExact is the pairing repair's proof that every tool result
	// follows its call at once and carries the call's id as written
	// (pairing.pairedAsIs; Proof.Value unused): the result-id alignment
	// (pairing.AlignResultIDs) takes it instead of reading every call and
	// result again while the history is unedited.
	ResultIDsExact Proof
	// facts is the Skipper's superset of what the job's messages hold,
	// for MayHold, once factsKnown; priorFacts is facts before the rule
	// that runs now added what it declares (Stage.Adds), which NoEdit
	// restores.
	facts, priorFacts transcript.Facts
	factsKnown        bool
	// edits counts the rules that may have edited the history (every one
	// the Skipper let run but a ReadOnly one); lastEdit is the count when
	// the latest began, and priorEdit lastEdit before it (NoEdit).
	edits, lastEdit, priorEdit int
}

// MayHold reports whether the job's messages may hold any of f now: false
// only when the runner (Skipper) read the job's facts and knows that none
// holds them, which is exact for the facts some rule of the chain Needs
// (the runner's superset follows them through Adds). A rule reads it to
// leave out a walk of the whole history for what the job lacks (usage's
// search for a compactionSummary); with RunAll, or a rule applied by
// itself, it is true.
func (env *Env) MayHold(f transcript.Facts) bool {
	return !env.factsKnown || env.facts&f != 0
}

// A Proof is what a rule measured of the history as it left it (Prove),
// which a later rule may take instead of measuring again while no rule
// that may edit has run since (Unedited). The zero Proof proves nothing.
type Proof struct {
	Value int // what was measured: tokens, bytes
	at    int // Env.edits+1 when it was made; 0 for none
}

// Prove is a proof of value, measured of the history as it is now.
func (env *Env) Prove(value int) Proof { return Proof{Value: value, at: env.edits + 1} }

// Unedited returns p's value, and true when p proves something of the
// history as it is: no rule that may edit it began since p was made, or
// each that did said it edited nothing (NoEdit).
func (env *Env) Unedited(p Proof) (int, bool) {
	return p.Value, p.at != 0 && p.at > env.lastEdit
}

// FoundUnedited is Unedited for a rule that is not ReadOnly, asked in its
// Apply: whether p proves something of the history as that rule found it
// (the Skipper set the proofs aside as it began, since it may edit).
func (env *Env) FoundUnedited(p Proof) (int, bool) {
	return p.Value, p.at != 0 && p.at > env.priorEdit
}

// NoEdit is what a rule that is not ReadOnly says when it leaves the
// history as it found it this time: the proofs made before it stand
// again, and the facts it declared it may add (Stage.Adds) are taken
// back, since it added none. Only the rule the Skipper let run last may
// call it, and only when it edited nothing.
func (env *Env) NoEdit() { env.lastEdit, env.facts = env.priorEdit, env.priorFacts }

// editing sets aside every proof made before now: a rule that may edit
// the history is about to run.
func (env *Env) editing() {
	env.edits++
	env.priorEdit, env.lastEdit = env.lastEdit, env.edits
}

// Fanout runs the chunks of one job's work in parallel, within bounds the
// worker's configuration sets. A rule that uses it must give output
// byte-identical to its sequential run.
type Fanout interface {
	// Chunks returns into how many chunks a history of n messages should
	// be split: 1 (run it sequentially) below the configured threshold.
	Chunks(n int) int
	// ChunksForBytes is Chunks for a job of n bytes (its decode, before
	// the messages are counted).
	ChunksForBytes(n int) int
	// Run calls f(0) ... f(k-1), each once, some of them in parallel, and
	// returns when all have returned. The caller's goroutine runs chunks
	// itself, so Run never waits for a free helper to make progress. A
	// panic in f is raised again on the caller's goroutine.
	Run(k int, f func(chunk int))
}

// Reject is the error a stage returns when the job cannot be sent to its
// target at all: the processor turns it into a dead letter with Code and
// the sentence Msg, naming the stage. It is the only error a stage returns
// for its input; every other error is a bug.
type Reject struct {
	Code deadletter.Code
	Msg  string
}

func (r *Reject) Error() string { return string(r.Code) + ": " + r.Msg }

// Settings are the effective worker settings for one job: configuration,
// then the tenant's overrides, then the job's options.
type Settings struct {
	// MissingToolResultText is the text of a synthetic missing tool result
	// for every family but OpenAI Responses (which uses "aborted").
	MissingToolResultText string
	// Images, Pruning and Context are the job's resolved sections (package
	// settings: the configuration's, the tenant's overlay, the job's).
	Images  settings.Images
	Pruning settings.Pruning
	// Context is the job's resolved context-window fit: its mode, and the
	// window and output reserve when set (0: the model table).
	Context settings.Context
	// Request is what the job's options say of its next request (its
	// clock, context window, tools, retry): the options' own declaration.
	Request settings.Request
	// ContractMode is what the contract stage does with a violation:
	// settings.ContractReject (a dead letter) or settings.ContractReport
	// (listed in the report); "" means settings.ContractReject.
	ContractMode settings.ContractMode
}

// Report records what the chain changed; it goes into the ready payload.
// Its JSON encoding is deterministic (encoding/json sorts map keys, and
// Counts writes its counts in that order).
type Report struct {
	Changed       bool                 `json:"changed"`
	Stages        Counts               `json:"stages"`
	Images        ImageReport          `json:"images"`
	Pruning       PruningReport        `json:"pruning"`
	SessionRepair *SessionRepairReport `json:"session_repair,omitempty"`
	Contract      *ContractReport      `json:"contract,omitempty"`
	ContextFit    *ContextFitReport    `json:"context_fit,omitempty"`
	BytesIn       int                  `json:"bytes_in"`
	BytesOut      int                  `json:"bytes_out"`
}

// ImageReport counts image work.
type ImageReport struct {
	Resized  int   `json:"resized"`
	Omitted  int   `json:"omitted"`
	Stale    int   `json:"stale"`
	BytesIn  int64 `json:"bytes_in"`
	BytesOut int64 `json:"bytes_out"`
}

// PruningReport says whether pruning ran, so the runner can reset its TTL
// clock (spec §3.18: only a prune that changed something resets it).
type PruningReport struct {
	Ran         bool `json:"ran"`
	SoftTrimmed int  `json:"soft_trimmed"`
	HardCleared int  `json:"hard_cleared"`
}

// SessionRepairReport counts the malformed lines dropped from a JSONL
// session (spec §3.17), and the compactions whose first kept entry is
// missing or out of range (nothing before them kept; absent when none);
// the file itself is never modified.
type SessionRepairReport struct {
	DroppedLines      int `json:"dropped_lines"`
	KeepPointsMissing int `json:"compaction_keep_points_missing,omitempty"`
}

// ContractReport lists what the contract stage found: the target family,
// the first violations (at most contract.MaxListed, each "path: what") and
// the count of every violation by rule. It is present only when there was
// a violation.
type ContractReport struct {
	Family     string         `json:"family"`
	Violations []string       `json:"violations"`
	ByRule     map[string]int `json:"by_rule"`
}

// ContextFitReport gives the figures of the context-window fit (issue 30):
// present only when the request was counted over its budget, so a job
// that fits has none. The window, the reserve and the room (the input the
// request may hold: the window less the reserve, or the model's own input
// limit when smaller) are in tokens, counted by the tokenizer named;
// TokensAfter is the count of what was written (TokensBefore in report
// mode, where nothing is dropped and Fits is false).
type ContextFitReport struct {
	Mode            string `json:"mode"`
	Tokenizer       string `json:"tokenizer"`
	Window          int    `json:"window"`
	Reserve         int    `json:"reserve"`
	Room            int    `json:"room"`
	TokensBefore    int    `json:"tokens_before"`
	TokensAfter     int    `json:"tokens_after"`
	SoftTrimmed     int    `json:"soft_trimmed"`
	HardCleared     int    `json:"hard_cleared"`
	TurnsDropped    int    `json:"turns_dropped"`
	MessagesDropped int    `json:"messages_dropped"`
	Fits            bool   `json:"fits"`
}

// NewReport returns an empty report, with room for a small job's counts
// in the same allocation.
func NewReport() *Report {
	r := new(roomyReport)
	r.Stages.list = r.room[:0]
	return &r.Report
}

// roomyReport is a Report and the room of its first counts.
type roomyReport struct {
	Report
	room [countsCap]Count
}

// Add counts n changes of kind what by stage; n <= 0 records nothing, so a
// stage that changed nothing leaves no entry.
func (r *Report) Add(stage, what string, n int) {
	if n > 0 {
		r.Stages.add(stage, what, n)
	}
}
