package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/sendable"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transport"
)

// badIDJob has a tool-call id Anthropic refuses and no rule to repair it
// (the processor below runs only the final stages).
const badIDJob = `{"job_id":"j2","tenant":"acme","session_id":"s1","target":{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"},"messages":[` +
	`{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"toolCall","id":"call|1","name":"read","arguments":{}}]},` +
	`{"role":"toolResult","toolCallId":"call|1","toolName":"read","content":[{"type":"text","text":"ok"}]}]}`

func processWith(t *testing.T, cfg config.Config, value string) Outcome {
	t.Helper()
	p := NewProcessor(cfg.Limits, ResolverFor(cfg), Deps{Stages: []stage.Stage{sendable.EmptyHistory(), sendable.Contract()}})
	out, err := p.Process(context.Background(), transport.Record{Value: []byte(value)})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProcessUnsendable: a contract violation is a dead letter unsendable
// whose sentence names the first violation with its path; the outcome's
// report lists them all (the runner counts them by rule).
func TestProcessUnsendable(t *testing.T) {
	out := processWith(t, config.Default(), badIDJob)
	if out.Ready || out.Code != "unsendable" || out.Stage != "contract" ||
		!strings.HasPrefix(out.Error, `messages[1].content[0]: tool-call id "call|1" does not match ^[a-zA-Z0-9_-]+$ (2 violations: tool_call_id 2)`) {
		t.Fatalf("got ready=%v code=%q stage=%q error=%q", out.Ready, out.Code, out.Stage, out.Error)
	}
	if c := out.Report.Contract; c == nil || c.Family != "anthropic-messages" || len(c.Violations) != 2 || c.ByRule["tool_call_id"] != 2 {
		t.Fatalf("report %+v", out.Report.Contract)
	}
}

// TestProcessContractReportMode: contract.mode report writes the payload
// and lists the violations under report.contract.
func TestProcessContractReportMode(t *testing.T) {
	cfg := config.Default()
	cfg.Contract.Mode = settings.ContractReport
	out := processWith(t, cfg, badIDJob)
	if !out.Ready {
		t.Fatalf("dead letter in report mode: %+v", out)
	}
	var payload struct {
		Report struct {
			Contract struct {
				Family     string         `json:"family"`
				Violations []string       `json:"violations"`
				ByRule     map[string]int `json:"by_rule"`
			} `json:"contract"`
		} `json:"report"`
	}
	if err := json.Unmarshal(out.Payload, &payload); err != nil {
		t.Fatal(err)
	}
	c := payload.Report.Contract
	if c.Family != "anthropic-messages" || c.ByRule["tool_call_id"] != 2 ||
		c.Violations[1] != `messages[2]: tool-result id "call|1" does not match ^[a-zA-Z0-9_-]+$` {
		t.Fatalf("report.contract %+v", c)
	}
	if clean := processWith(t, cfg, processJob); !clean.Ready || strings.Contains(string(clean.Payload), `"contract"`) {
		t.Fatalf("a sendable job's report has a contract entry: %s", clean.Payload)
	}
}

// TestProcessEmptyHistory: no message, or no user turn, is a dead letter
// empty_history that says what the repair removed.
func TestProcessEmptyHistory(t *testing.T) {
	noMessages := strings.Replace(processJob, `"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"text","text":"yo"}]}]`, `"messages":[]`, 1)
	onlyAssistant := strings.Replace(processJob, `{"role":"user","content":"hi"},`, ``, 1)
	for _, tc := range []struct{ name, job, says string }{
		{"no messages", noMessages, "messages: the job has no messages, so there is nothing to send"},
		{"no user turn", onlyAssistant, "messages: nothing left to send: no user turn is left of 1 input messages (1 remain, none from the user); no rule removed anything, so the input had no user turn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := processWith(t, config.Default(), tc.job)
			if out.Ready || out.Code != "empty_history" || out.Stage != "empty_history" || out.Error != tc.says {
				t.Fatalf("got ready=%v code=%q stage=%q error=%q", out.Ready, out.Code, out.Stage, out.Error)
			}
		})
	}
}
