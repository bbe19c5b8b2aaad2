package transcript

import (
	"testing"

	"github.com/hygiene-dev/hygiene/internal/deadletter"
)

// TestDecodeTargetIsStrict: a job's target read without reflection is the
// target strictUnmarshal reads, and every target the fast read declines
// is left as it was, for strictUnmarshal (and its error) to take.
func TestDecodeTargetIsStrict(t *testing.T) {
	targets := []string{
		`{"provider":"anthropic","api":"anthropic-messages","model":"claude-opus-4-6"}`,
		`{"model":"gpt-5.4","provider":"openai"}`,
		`{}`,
		`{"provider":""}`,
		`{"provider":"","provider":"x"}`,
		`{"provider":"a","provider":"b"}`,
		`{"Provider":"a"}`,
		`{"provider":"a\u00e9"}`,
		`{"provider":"a\"b"}`,
		`{"provider":"é模型"}`,
		"{\"provider\":\"a\xffb\"}",
		`{"provider":1}`,
		`{"provider":null}`,
		`{"region":"us"}`,
		`null`,
		`[]`,
		`"x"`,
		` { "provider" : "a" } `,
	}
	took := 0
	for _, raw := range targets {
		var got Target
		if !decodeTarget([]byte(raw), &got) {
			if got != (Target{}) {
				t.Errorf("%s: declined but set %+v", raw, got)
			}
			continue
		}
		took++
		var want Target
		if err := strictUnmarshal([]byte(raw), &want, "target", deadletter.CodeInvalidTarget); err != nil {
			t.Errorf("%s: fast read took what strictUnmarshal refuses: %v", raw, err)
		} else if got != want {
			t.Errorf("%s: got %+v, strictUnmarshal %+v", raw, got, want)
		}
	}
	if took < 6 {
		t.Fatalf("the fast read took only %d of %d targets", took, len(targets))
	}
}

// TestStrictUnmarshalWordsTypeErrors: a member of the wrong JSON type is
// named by its path and refused in JSON's words, not encoding/json's (Go
// struct and type names, which differ between the implementations behind
// encoding/json).
func TestStrictUnmarshalWordsTypeErrors(t *testing.T) {
	for raw, want := range map[string]string{
		`{"provider":1}`:              "target.provider: must be a string, got number",
		`{"provider":"a","model":[]}`: "target.model: must be a string, got array",
		`{"api":{}}`:                  "target.api: must be a string, got object",
		`{"region":"us"}`:             `target: unknown field "region"`,
	} {
		err := strictUnmarshal([]byte(raw), new(Target), "target", deadletter.CodeInvalidTarget)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", raw, err, want)
		}
	}
}
