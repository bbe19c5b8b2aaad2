package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/sessiongen"
	"github.com/hygiene-dev/hygiene/internal/stages"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// bodySeeds is how many bodies of each format and variant the properties
// read (sessiongen.Bodies).
const bodySeeds = 4

// worked is what the worker makes of a request body for one target: the
// body it renders, what the parse dropped and the chain's report, or why
// the job was refused.
type worked struct {
	body    []byte
	dropped map[string]int
	report  *stage.Report
	refused error
}

// throughWorker runs a request body of format in as a request job for tg
// runs it, step by step as the pipeline does (internal/pipeline: parse,
// decode, option check, the chain but the image rule, final turn, render):
// wire.Parse with the job's source, the body's system and tools as the
// job's options, CheckOptions, stages.Default without "images" (it needs
// libvips, and resizes images without removing them), FinalTurn and Render.
func throughWorker(t *testing.T, in Format, body []byte, src, tg transcript.Target) worked {
	t.Helper()
	p := policy.Resolve(tg)
	out := FormatFor(p)
	parsed, err := Parse(in, body, src, out)
	if err != nil {
		return worked{refused: fmt.Errorf("parse: %w", err)}
	}
	tr, err := transcript.FromMessages(parsed.Messages, tg)
	if err != nil {
		return worked{refused: fmt.Errorf("decode: %w", err)}
	}
	tr.Options = transcript.Options{Render: RenderRequest, System: parsed.System, Tools: parsed.Tools, Continue: parsed.Continue}
	if err := CheckOptions(tr.Options, out); err != nil {
		return worked{refused: fmt.Errorf("options: %w", err)}
	}
	env := &stage.Env{Policy: p, Report: stage.NewReport()}
	for _, s := range stages.Default(nil) {
		if s.Name == "images" {
			continue
		}
		if err := s.Apply(context.Background(), tr, env); err != nil {
			return worked{refused: fmt.Errorf("stage %s: %w", s.Name, err)}
		}
	}
	final, err := FinalTurn(p, tr.Messages, tr.Options)
	if err != nil {
		return worked{refused: fmt.Errorf("final turn: %w", err)}
	}
	rendered := Render(nil, out, p, tr.Messages, Request{System: tr.Options.System, Tools: tr.Options.Tools, Final: final})
	return worked{body: rendered, dropped: parsed.Dropped, report: env.Report}
}

// cacheMarked returns, joined by NUL, the strings of every object of a
// body that has a cache_control member (the blocks it marks).
func cacheMarked(t *testing.T, body []byte) string {
	var sb strings.Builder
	eachValue(t, body, func(x any) {
		obj, ok := x.(map[string]any)
		if _, marked := obj["cache_control"]; !ok || !marked {
			return
		}
		for _, e := range obj {
			if s, ok := e.(string); ok {
				sb.WriteString(s)
				sb.WriteByte(0)
			}
		}
	})
	return sb.String()
}

// hasString reports whether s is one of the NUL-joined strings of all
// (whole), or, for a part that can be written inside a longer string (a
// data URL, a joined text), a substring of one.
func hasString(all, s string, whole bool) bool {
	if whole {
		return strings.HasPrefix(all, s+"\x00") || strings.Contains(all, "\x00"+s+"\x00")
	}
	return strings.Contains(all, s)
}

// strictID is id in the policies' strict mode: its ASCII letters and
// digits (call_Ab3… → callAb3…).
func strictID(id string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return -1
	}, id)
}

// knownLoss says why the worker still does not keep a part of a realistic
// body, when it is one the round trip knows of ("" for every other part):
// only what is lost is excepted, and the rest of the part is checked here.
// The round trip logs it instead of failing, and fails once it is kept, so
// the exception goes with the fix.
func knownLoss(b sessiongen.Body, part sessiongen.Part, all string) string {
	base, _, folded := strings.Cut(part.Value, "__thought__")
	if part.Kind == sessiongen.PartCallID && folded && strings.Contains(all, "\x00"+strictID(base)) {
		// the call keeps its id's base and its result, but the Chat ids of
		// an OpenAI-compatible server are strict (policy: openAICompatible,
		// as OpenClaw's), so the Gemini signature LiteLLM folds into the id
		// after "__thought__" (and its '+', '/', '=') is cut away, and LiteLLM
		// cannot hand it back to Gemini 3
		return "LiteLLM's __thought__ signature is cut from call id " + base
	}
	return ""
}

// TestRealBodiesRoundTrip: over the realistic bodies of every format and
// SDK variant (sessiongen.Bodies), a body sent back to the endpoint it was
// written for, render_F(parse_F(B)) through the worker's steps, is not
// refused and keeps every part the body lists: texts, call ids, base64
// images, documents, images by URL, file ids, signatures (thinking,
// thought, redacted, encrypted reasoning) and, on Anthropic, each block's
// cache_control.
func TestRealBodiesRoundTrip(t *testing.T) {
	for _, b := range sessiongen.AllBodies(bodySeeds) {
		where := fmt.Sprintf("%s/%s", b.Format, b.Variant)
		f, _ := ParseFormat(b.Format)
		if got := FormatFor(policy.Resolve(b.Source)); got != f {
			t.Fatalf("%s: the source %v renders %s", where, b.Source, got)
		}
		w := throughWorker(t, f, b.JSON, b.Source, b.Source)
		if w.refused != nil {
			t.Errorf("%s: refused: %v", where, w.refused)
			continue
		}
		all := bodyStrings(t, w.body)
		var marked string
		for _, part := range b.Parts {
			var ok bool
			switch part.Kind {
			case sessiongen.PartCacheControl:
				if marked == "" {
					marked = cacheMarked(t, w.body)
				}
				ok = hasString(marked, part.Value, true)
			case sessiongen.PartCallID: // as it is, or as the policy's strict ids write it
				ok = hasString(all, part.Value, true) || hasString(all, strictID(part.Value), true)
			case sessiongen.PartSignature, sessiongen.PartImageURL, sessiongen.PartFileID:
				ok = hasString(all, part.Value, true)
			default: // texts may be joined, base64 may sit in a data URL
				ok = hasString(all, part.Value, false)
			}
			if why := knownLoss(b, part, all); why != "" {
				if ok {
					t.Errorf("%s: %s %.50q is kept now: remove its knownLoss", where, part.Kind, part.Value)
				} else {
					t.Logf("%s: known loss: %s", where, why)
				}
				continue
			}
			if !ok {
				t.Errorf("%s: %s %.50q is lost (dropped %v)", where, part.Kind, part.Value, w.dropped)
			}
		}
	}
}

// mediaCounted is how many parts of kind the parse and the chain counted
// (every counter whose name holds the kind: dropped_document,
// replaced_image_url, ...).
func mediaCounted(w worked, kind string) int {
	n := 0
	for k, v := range w.dropped {
		if strings.Contains(k, kind) {
			n += v
		}
	}
	for _, c := range w.report.Stages.List() {
		if strings.Contains(c.What, kind) {
			n += c.N
		}
	}
	return n
}

// placeholderMark is what every placeholder of a file a target cannot
// carry says (transcript's MediaPlaceholder: "[document … not sent: …]").
const placeholderMark = " not sent: "

// TestRealBodiesCrossFormat: for all 36 pairs of input and target format,
// over the realistic bodies of every variant, every document, image by URL
// and file id of the input is either in the target's body or replaced by a
// placeholder that names it (by its name, URL, file id or S3 URI) and that
// the report counts under the part's kind; no body is refused (but one
// that ends with a prefill, by a target that cannot continue it).
func TestRealBodiesCrossFormat(t *testing.T) {
	for _, b := range sessiongen.AllBodies(2) {
		f, _ := ParseFormat(b.Format)
		for _, tg := range propertyTargets {
			where := fmt.Sprintf("%s/%s → %s", b.Format, b.Variant, FormatFor(policy.Resolve(tg)))
			w := throughWorker(t, f, b.JSON, b.Source, tg)
			if w.refused != nil {
				// a prefill ends the history with the assistant's turn:
				// a target that cannot continue it refuses by FinalTurn
				if !b.Prefill || !strings.HasPrefix(w.refused.Error(), "final turn:") || FormatFor(policy.Resolve(tg)) == f {
					t.Errorf("%s: refused: %v", where, w.refused)
				}
				continue
			}
			all := bodyStrings(t, w.body)
			placeholders := strings.Count(all, placeholderMark)
			missing := map[string]int{}
			for _, part := range b.Parts {
				if !part.IsMedia() || strings.Contains(all, part.Value) {
					continue
				}
				missing[part.Kind]++
				named := part.Name
				if named == "" && !strings.HasPrefix(part.Value, "JVBER") && !strings.Contains(part.Value, "\n") {
					named = part.Value // a URL, file id or S3 URI names itself
				}
				if named != "" && !placeholderNames(all, named) {
					t.Errorf("%s: %s %.60q is neither carried nor named in a placeholder", where, part.Kind, part.Value)
				}
			}
			total := 0
			for kind, n := range missing {
				total += n
				if c := mediaCounted(w, kind); c < n {
					t.Errorf("%s: %d %s parts replaced or dropped, the report counts %d", where, n, kind, c)
				}
			}
			if placeholders < total {
				t.Errorf("%s: %d files not carried, %d placeholders", where, total, placeholders)
			}
		}
	}
}

// placeholderNames reports whether a placeholder among the body's strings
// names name.
func placeholderNames(all, name string) bool {
	for _, s := range strings.Split(all, "\x00") {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, placeholderMark) && strings.Contains(line, name) {
				return true
			}
		}
	}
	return false
}

// TestGoldenRealBodies: one realistic body per format and SDK variant
// (seed 1, two exchanges) and what the worker makes of it for the endpoint
// it was written for: what the parse dropped, the chain's counts and the
// rendered body, compared with testdata/bodies/<format>.<variant>.json
// (go test -update rewrites; review the diff).
func TestGoldenRealBodies(t *testing.T) {
	for _, format := range sessiongen.BodyFormats {
		for _, variant := range sessiongen.BodyVariants[format] {
			t.Run(format+"."+variant, func(t *testing.T) {
				b := sessiongen.Bodies(sessiongen.BodyConfig{Seed: 1, Format: format, Variant: variant, Turns: 2})
				f, _ := ParseFormat(format)
				w := throughWorker(t, f, b.JSON, b.Source, b.Source)
				golden := map[string]any{"request_format": format, "source": b.Source.Provider + "/" + b.Source.API + "/" + b.Source.Model,
					"request": json.RawMessage(b.JSON), "dropped": w.dropped}
				if w.refused != nil {
					golden["refused"] = w.refused.Error()
				} else {
					golden["report"], golden["body"] = w.report.Stages, json.RawMessage(w.body)
				}
				compareGolden(t, filepath.Join("testdata", "bodies", format+"."+variant+".json"), golden)
			})
		}
	}
}
