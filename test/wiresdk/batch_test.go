package wiresdk

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/hygiene-dev/hygiene/internal/batch"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// TestBatchLines writes the golden bodies of each batch API's format into
// batch files and checks every line against the SDK: an Anthropic line is a
// MessageBatchNewParamsRequest, an OpenAI line's body the endpoint's
// request params, each round-tripping to the same JSON.
func TestBatchLines(t *testing.T) {
	bodies := goldenBodies(t)
	for _, kind := range batch.Kinds {
		t.Run(string(kind), func(t *testing.T) {
			dir := t.TempDir()
			w, err := batch.Open(batch.Config{Dir: dir, Kind: kind, Model: "model-1", MaxTokens: 512}, false)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, b := range bodies {
				if b.format != kind.Format() {
					continue
				}
				if err := w.Add(fmt.Sprintf("sessions/%s.jsonl", b.name), &transcript.Request{Format: string(b.format), Body: b.json}); err != nil {
					t.Fatal(err)
				}
				n++
			}
			files, err := w.Close()
			if err != nil || n == 0 {
				t.Fatalf("%d bodies, %v", n, err)
			}
			lines := 0
			for _, path := range files {
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				sc := bufio.NewScanner(f)
				sc.Buffer(nil, 64<<20)
				for sc.Scan() {
					lines++
					if err := checkBatchLine(kind, sc.Bytes()); err != nil {
						t.Errorf("%s line %d: %v", path, lines, err)
					}
				}
				f.Close()
			}
			if lines != n {
				t.Fatalf("%d lines for %d bodies", lines, n)
			}
		})
	}
}

func checkBatchLine(kind batch.Kind, line []byte) error {
	var want map[string]any
	if err := decode(line, &want); err != nil {
		return err
	}
	var got []byte
	var err error
	switch kind {
	case batch.Anthropic:
		got, err = viaSDK[anthropic.MessageBatchNewParamsRequest](want)
	default:
		body, _ := want["body"].(map[string]any)
		if body == nil || want["method"] != "POST" {
			return fmt.Errorf("not an OpenAI batch line: %s", line)
		}
		if err := stripChatExtensions(body, wire.OpenAIChat); err != nil {
			return err
		}
		var back []byte
		if kind == batch.OpenAIResponses {
			back, err = viaSDK[responses.ResponseNewParams](body)
		} else {
			back, err = viaSDK[openai.ChatCompletionNewParams](body)
		}
		if err != nil {
			return err
		}
		got, err = json.Marshal(map[string]any{"custom_id": want["custom_id"], "method": want["method"], "url": want["url"], "body": json.RawMessage(back)})
	}
	if err != nil {
		return err
	}
	var back map[string]any
	if err := decode(got, &back); err != nil {
		return err
	}
	if d := firstDiff("", want, back); d != "" {
		return fmt.Errorf("SDK round trip differs: %s", d)
	}
	return nil
}
