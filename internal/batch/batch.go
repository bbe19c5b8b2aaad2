// Package batch writes the request bodies of package wire as JSONL batch
// request files for the providers' offline batch APIs (worker replay
// --batch):
//
//   - Anthropic Message Batches: one {"custom_id","params"} line per
//     session, params being the Messages body with model and max_tokens;
//     a batch holds at most 100,000 requests and 256 MB
//     (https://docs.anthropic.com/en/docs/build-with-claude/batch-processing,
//     "Batch limitations"; API reference: requests maxItems 100000,
//     custom_id ^[a-zA-Z0-9_-]{1,64}$, unique within the batch).
//   - OpenAI Batch: one {"custom_id","method":"POST","url","body"} line per
//     session, url /v1/chat/completions (body with model and
//     max_completion_tokens) or /v1/responses (model and max_output_tokens);
//     an input file holds at most 50,000 requests and 200 MB, all for one
//     model (https://platform.openai.com/docs/api-reference/batch/create and
//     https://platform.openai.com/docs/guides/batch).
//
// Files are split before either limit is reached (MB read as 10^6 bytes,
// the stricter reading; the Anthropic limit also leaves room for the
// {"requests":[...]} wrapper the lines go into). A file is written as
// NAME.jsonl.partial, one write per line, and renamed to NAME.jsonl when it
// is full or the writer closes; Open with resume adopts the partial file an
// interrupted run left (its complete lines are the sessions the replay
// checkpoint recorded) and numbers new files after the existing ones.
//
// custom_id is derived from the session's path relative to its input: the
// path without its .jsonl / .jsonl.zst extension, when it already matches
// the pattern; otherwise the path with every other character replaced by
// "_", cut to 55 characters, then "-" and the first 8 hex digits of the
// SHA-256 of the path. The id is deterministic, and unique: two sessions
// with the same id (a clash of hashes) are an error naming both.
//
// May import: internal/transcript, internal/wire.
package batch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// Kind is a batch API.
type Kind string

// The batch APIs.
const (
	Anthropic       Kind = "anthropic"
	OpenAIChat      Kind = "openai-chat"
	OpenAIResponses Kind = "openai-responses"
)

// Kinds lists every batch API.
var Kinds = []Kind{Anthropic, OpenAIChat, OpenAIResponses}

// Limits are one batch file's bounds.
type Limits struct {
	MaxRequests int
	MaxBytes    int64
}

// DocumentedLimits returns the API's documented per-batch limits (see the
// package comment).
func (k Kind) DocumentedLimits() Limits {
	if k == Anthropic {
		return Limits{MaxRequests: 100_000, MaxBytes: 256_000_000 - wrapperBytes}
	}
	return Limits{MaxRequests: 50_000, MaxBytes: 200_000_000}
}

// wrapperBytes is kept free in an Anthropic file for {"requests":[ ]}.
const wrapperBytes = 64

// Format is the request format the kind's lines carry.
func (k Kind) Format() wire.Format {
	switch k {
	case Anthropic:
		return wire.AnthropicMessages
	case OpenAIResponses:
		return wire.OpenAIResponses
	}
	return wire.OpenAIChat
}

// DefaultTarget is the target sessions are sanitized for when the replay
// names none: the kind's own provider and API, for model.
func (k Kind) DefaultTarget(model string) transcript.Target {
	switch k {
	case Anthropic:
		return transcript.Target{Provider: "anthropic", API: "anthropic-messages", Model: model}
	case OpenAIResponses:
		return transcript.Target{Provider: "openai", API: "openai-responses", Model: model}
	}
	return transcript.Target{Provider: "openai", API: "openai-completions", Model: model}
}

// ParseKind reads a --batch value.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("--batch must be one of anthropic, openai-chat, openai-responses, got %q", s)
}

// Config configures a Writer.
type Config struct {
	Dir       string
	Kind      Kind
	Model     string
	MaxTokens int
	// Limits bound each file; zero fields take the documented limits, and
	// larger values are refused.
	Limits Limits
}

// Writer appends batch lines to numbered files. It is safe for concurrent
// use.
type Writer struct {
	cfg    Config
	mu     sync.Mutex
	ids    map[string]string // custom_id → session path
	f      *os.File
	name   string // current file, without .partial
	next   int    // number of the next file
	lines  int
	bytes  int64
	closed []string
	line   []byte
}

// filePattern matches the files of one kind: <kind>-batch-0001.jsonl.
func filePattern(k Kind) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(string(k)) + `-batch-(\d{4,})\.jsonl(\.partial)?$`)
}

// Open prepares a writer. Without resume, a directory that already holds
// this kind's batch files is an error (their sessions would be sent twice);
// with resume, a leftover partial file is completed and new files are
// numbered after the existing ones.
func Open(cfg Config, resume bool) (*Writer, error) {
	doc := cfg.Kind.DocumentedLimits()
	if cfg.Limits.MaxRequests == 0 {
		cfg.Limits.MaxRequests = doc.MaxRequests
	}
	if cfg.Limits.MaxBytes == 0 {
		cfg.Limits.MaxBytes = doc.MaxBytes
	}
	switch {
	case cfg.Model == "":
		return nil, errors.New("--model is required with --batch")
	case cfg.MaxTokens < 1:
		return nil, fmt.Errorf("--max-tokens must be at least 1, got %d", cfg.MaxTokens)
	case cfg.Limits.MaxRequests < 1 || cfg.Limits.MaxRequests > doc.MaxRequests:
		return nil, fmt.Errorf("batch requests per file must be within [1,%d], got %d", doc.MaxRequests, cfg.Limits.MaxRequests)
	case cfg.Limits.MaxBytes < 1 || cfg.Limits.MaxBytes > doc.MaxBytes:
		return nil, fmt.Errorf("batch bytes per file must be within [1,%d], got %d", doc.MaxBytes, cfg.Limits.MaxBytes)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	w := &Writer{cfg: cfg, ids: map[string]string{}, next: 1}
	entries, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	re := filePattern(cfg.Kind)
	var partials []string
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if !resume {
			return nil, fmt.Errorf("%s already holds %s batch files (%s); run with --resume to continue them, or choose another --out", cfg.Dir, cfg.Kind, e.Name())
		}
		n, _ := strconv.Atoi(m[1])
		w.next = max(w.next, n+1)
		if m[2] != "" {
			partials = append(partials, filepath.Join(cfg.Dir, e.Name()))
		}
	}
	for _, p := range partials {
		if err := completePartial(p); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// completePartial cuts an interrupted file after its last complete line and
// renames it to its final name.
func completePartial(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if i := bytes.LastIndexByte(data, '\n'); i+1 != len(data) {
		if err := os.Truncate(path, int64(i+1)); err != nil {
			return err
		}
	}
	return os.Rename(path, strings.TrimSuffix(path, ".partial"))
}

// Add writes the line of one session: rel is its path relative to its
// input, req the request body rendered for it (its format must be the
// kind's).
func (w *Writer) Add(rel string, req *transcript.Request) error {
	if req == nil || req.Format != string(w.cfg.Kind.Format()) {
		got := "none"
		if req != nil {
			got = req.Format
		}
		return fmt.Errorf("%s: the %s batch needs a %s body, the session rendered %s (check --target)", rel, w.cfg.Kind, w.cfg.Kind.Format(), got)
	}
	id := CustomID(rel)
	w.mu.Lock()
	defer w.mu.Unlock()
	if other, dup := w.ids[id]; dup {
		return fmt.Errorf("sessions %s and %s have the same custom_id %s", other, rel, id)
	}
	w.ids[id] = rel
	w.line = w.appendLine(w.line[:0], id, req.Body)
	size := int64(len(w.line))
	if size > w.cfg.Limits.MaxBytes {
		return fmt.Errorf("%s: its batch line is %d bytes, over the %d bytes a %s batch file may hold", rel, size, w.cfg.Limits.MaxBytes, w.cfg.Kind)
	}
	if w.f != nil && (w.lines >= w.cfg.Limits.MaxRequests || w.bytes+size > w.cfg.Limits.MaxBytes) {
		if err := w.finish(); err != nil {
			return err
		}
	}
	if w.f == nil {
		w.name = filepath.Join(w.cfg.Dir, fmt.Sprintf("%s-batch-%04d.jsonl", w.cfg.Kind, w.next))
		w.next++
		f, err := os.OpenFile(w.name+".partial", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		w.f, w.lines, w.bytes = f, 0, 0
	}
	if _, err := w.f.Write(w.line); err != nil {
		return err
	}
	w.lines++
	w.bytes += size
	return nil
}

// appendLine writes one JSONL line: the kind's envelope around the body,
// with the model parameters first.
func (w *Writer) appendLine(dst []byte, id string, body []byte) []byte {
	dst = append(dst, `{"custom_id":`...)
	dst = transcript.AppendString(dst, id)
	switch w.cfg.Kind {
	case Anthropic:
		dst = append(dst, `,"params":{"model":`...)
	case OpenAIResponses:
		dst = append(dst, `,"method":"POST","url":"/v1/responses","body":{"model":`...)
	default:
		dst = append(dst, `,"method":"POST","url":"/v1/chat/completions","body":{"model":`...)
	}
	dst = transcript.AppendString(dst, w.cfg.Model)
	switch w.cfg.Kind {
	case Anthropic:
		dst = append(dst, `,"max_tokens":`...)
	case OpenAIResponses:
		dst = append(dst, `,"max_output_tokens":`...)
	default:
		dst = append(dst, `,"max_completion_tokens":`...)
	}
	dst = strconv.AppendInt(dst, int64(w.cfg.MaxTokens), 10)
	dst = append(dst, ',')
	// A body holds no line break when it is compact; one written by hand
	// (or indented) is compacted so that it stays one line.
	if bytes.ContainsAny(body, "\n\r") {
		var buf bytes.Buffer
		if json.Compact(&buf, body) == nil {
			body = buf.Bytes()
		}
	}
	dst = append(dst, bytes.TrimPrefix(bytes.TrimSpace(body), []byte("{"))...)
	return append(dst, "}\n"...)
}

// finish syncs and renames the current file.
func (w *Writer) finish() error {
	f := w.f
	w.f = nil
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(w.name+".partial", w.name); err != nil {
		return err
	}
	w.closed = append(w.closed, w.name)
	return nil
}

// Close completes the last file and returns the files written, in order.
func (w *Writer) Close() ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		if err := w.finish(); err != nil {
			return nil, err
		}
	}
	files := append([]string(nil), w.closed...)
	sort.Strings(files)
	return files, nil
}

var validID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CustomID derives a session's custom_id from its relative path (see the
// package comment).
func CustomID(rel string) string {
	base := filepath.ToSlash(rel)
	for _, ext := range []string{".jsonl.zst", ".jsonl"} {
		if strings.HasSuffix(base, ext) {
			base = strings.TrimSuffix(base, ext)
			break
		}
	}
	if validID.MatchString(base) {
		return base
	}
	clean := []byte(base)
	for i, c := range clean {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			clean[i] = '_'
		}
	}
	if len(clean) > 55 {
		clean = clean[:55]
	}
	sum := sha256.Sum256([]byte(rel))
	return string(clean) + "-" + hex.EncodeToString(sum[:4])
}
