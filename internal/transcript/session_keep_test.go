package transcript

import (
	"strings"
	"testing"
)

// Reproducers of issue 20: a pi v1 compaction names its keep-point by
// firstKeptEntryIndex, and a compaction whose keep-point is missing or out
// of range panicked DecodeSession (slice bounds out of range).

const (
	v1Header = `{"type":"session","id":"0a6f3c52-8d1e-4b7a-9f20-6e4c1d8b3a57","timestamp":"2025-11-20T09:12:44.031Z","cwd":"/home/dev/project"}`
	v3Header = `{"type":"session","version":3,"id":"7c1e9b04-2f6d-4a38-b5e1-93d0a7c42f18","timestamp":"2026-02-03T14:05:10.512Z","cwd":"/home/dev/project"}`
)

func v1Msg(role, text string) string {
	return `{"type":"message","timestamp":"2025-11-20T09:13:00.000Z","message":{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"}]}}`
}

func v3Msg(id, parent, role, text string) string {
	return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-02-03T14:06:00.000Z","message":{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"}]}}`
}

func TestDecodeSessionKeepPoints(t *testing.T) {
	const summary = `{"role":"compactionSummary","summary":"S","tokensBefore":48211,"timestamp":1763630000000}`
	v1Compaction := func(index string) string {
		return `{"type":"compaction","timestamp":"2025-11-20T09:13:20.000Z","summary":"S","firstKeptEntryIndex":` + index + `,"tokensBefore":48211}`
	}
	v3Compaction := func(extra string) string {
		return `{"type":"compaction","id":"e4b2a9c1","parentId":"5d0f7e3a","timestamp":"2025-11-20T09:13:20.000Z","summary":"S"` + extra + `,"tokensBefore":48211}`
	}
	v1 := func(compaction string) []string {
		return []string{v1Header, v1Msg("user", "one"), v1Msg("assistant", "two"), v1Msg("user", "three"), v1Msg("assistant", "four"),
			compaction, v1Msg("user", "five")}
	}
	v3 := func(compaction string) []string {
		return []string{v3Header, v3Msg("9a1c3e5f", "null", "user", "one"), v3Msg("2b4d6f80", `"9a1c3e5f"`, "assistant", "two"),
			v3Msg("5d0f7e3a", `"2b4d6f80"`, "user", "three"), compaction, v3Msg("71c3a5e9", `"e4b2a9c1"`, "user", "five")}
	}
	text := func(words ...string) string {
		var b strings.Builder
		b.WriteString("[" + summary)
		for _, w := range words {
			role := "user"
			if w == "two" || w == "four" {
				role = "assistant"
			}
			b.WriteString(`,{"role":"` + role + `","content":[{"type":"text","text":"` + w + `"}]}`)
		}
		return b.String() + "]"
	}
	for _, tc := range []struct {
		name    string
		lines   []string
		want    string
		missing int
	}{
		{"v1 index migrated to the entry it names", v1(v1Compaction("3")), text("three", "four", "five"), 0},
		{"v1 index of the first message", v1(v1Compaction("1")), text("one", "two", "three", "four", "five"), 0},
		{"v1 index of the header keeps nothing before", v1(v1Compaction("0")), text("five"), 1},
		{"v1 index after the compaction keeps nothing before", v1(v1Compaction("6")), text("five"), 1},
		{"v1 index out of range", v1(v1Compaction("99")), text("five"), 1},
		{"v1 index not a number", v1(v1Compaction(`"3"`)), text("five"), 1},
		{"v1 compaction without a keep-point", v1(`{"type":"compaction","timestamp":"2025-11-20T09:13:20.000Z","summary":"S","tokensBefore":48211}`), text("five"), 1},
		{"v3 id kept", v3(v3Compaction(`,"firstKeptEntryId":"2b4d6f80"`)), text("two", "three", "five"), 0},
		{"v3 without firstKeptEntryId", v3(v3Compaction(``)), text("five"), 1},
		{"v3 id not on the branch", v3(v3Compaction(`,"firstKeptEntryId":"ffffffff"`)), text("five"), 1},
		{"v3 ignores a v1 index", v3(v3Compaction(`,"firstKeptEntryIndex":2`)), text("five"), 1},
		{"compaction first on the branch", []string{v3Header, `{"type":"compaction","id":"e4b2a9c1","parentId":null,"timestamp":"2025-11-20T09:13:20.000Z","summary":"S","tokensBefore":48211}`,
			v3Msg("71c3a5e9", `"e4b2a9c1"`, "user", "five")}, text("five"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := DecodeSession([]byte(strings.Join(tc.lines, "\n")), Target{Provider: "anthropic"}, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := string(tr.MessagesJSON()); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if tr.Repair.KeepPointsMissing != tc.missing {
				t.Errorf("KeepPointsMissing = %d, want %d", tr.Repair.KeepPointsMissing, tc.missing)
			}
		})
	}
}
