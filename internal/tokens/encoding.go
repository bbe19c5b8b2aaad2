package tokens

import (
	"sync"
	"unsafe"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"
)

// encoding is one of OpenAI's published BPE encodings, loaded from the
// embedded vocabulary the first time it is used.
type encoding struct {
	name  string
	id    tokenizer.Encoding
	once  sync.Once
	codec tokenizer.Codec
}

var (
	o200k  = &encoding{name: "o200k_base", id: tokenizer.O200kBase}
	cl100k = &encoding{name: "cl100k_base", id: tokenizer.Cl100kBase}
)

// load builds the codec (the vocabulary is embedded: nothing is read from
// disk or network).
func (e *encoding) load() {
	e.once.Do(func() {
		c, err := tokenizer.Get(e.id)
		if err != nil {
			panic("tokens: embedded encoding " + e.name + " missing: " + err.Error())
		}
		c.(*codec.Codec).SetErrorMode(codec.ErrorModeReplace)
		e.codec = c
	})
}

// count returns the tokens of b under the encoding. Invalid UTF-8 is read as
// tiktoken reads a Python str made with errors="replace".
func (e *encoding) count(b []byte) int {
	e.load()
	n, _ := e.codec.Count(unsafe.String(unsafe.SliceData(b), len(b)))
	return n
}
