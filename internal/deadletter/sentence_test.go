package deadletter

import (
	"strings"
	"testing"
)

func TestSentence(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"messages[41].content[2]: unknown block type", "messages[41].content[2]: unknown block type"},
		{"decode panicked: boom\ngoroutine 1 [running]:\nmain.main()", "decode panicked: boom"},
		{"", ""},
		{"\nonly detail", ""},
	}
	for _, tt := range tests {
		if got := Sentence(tt.msg); got != tt.want {
			t.Errorf("Sentence(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

// A bug's error is its sentence, then at most stackLines lines of the
// stack; Sentence gives the sentence back.
func TestWithStack(t *testing.T) {
	var long []string
	for i := range 40 {
		long = append(long, "frame "+strings.Repeat("x", i))
	}
	tests := []struct {
		name      string
		stack     string
		wantLines int
	}{
		{"a long stack is cut", strings.Join(long, "\n"), stackLines},
		{"a short one is kept", "goroutine 1 [running]:\nmain.main()", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const msg = "stage pairing panicked: index out of range [3] with length 3"
			got := WithStack(msg, []byte(tt.stack))
			lines := strings.Split(got, "\n")
			if lines[0] != msg || len(lines)-1 != tt.wantLines || !strings.HasPrefix(tt.stack, strings.Join(lines[1:], "\n")) {
				t.Errorf("WithStack = %q: want the sentence, then the stack's first %d lines", got, tt.wantLines)
			}
			if Sentence(got) != msg {
				t.Errorf("Sentence(WithStack) = %q", Sentence(got))
			}
		})
	}
}
