package compression

import (
	"fmt"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Level is a zstd compression level by name: "fastest", "default",
// "better" or "best" (klauspost/compress's SpeedFastest, SpeedDefault,
// SpeedBetterCompression and SpeedBestCompression).
type Level string

// The levels. LevelBetter is what the worker uses for ready payloads by
// default: at LevelDefault a value full of base64 (images, binary tool
// output) does not shrink at all, at LevelBetter it shrinks to about 75%
// (bench/results/HISTORY.md, "Compression of ready payloads").
const (
	LevelFastest Level = "fastest"
	LevelDefault Level = "default"
	LevelBetter  Level = "better"
	LevelBest    Level = "best"
)

// Levels lists every level, fastest first.
var Levels = []Level{LevelFastest, LevelDefault, LevelBetter, LevelBest}

// ParseLevel returns the level named s (case-insensitive).
func ParseLevel(s string) (Level, error) {
	for _, l := range Levels {
		if strings.EqualFold(s, string(l)) {
			return l, nil
		}
	}
	return "", fmt.Errorf("compression: unknown zstd level %q (fastest, default, better, best)", s)
}

func (l Level) speed() zstd.EncoderLevel {
	switch l {
	case LevelFastest:
		return zstd.SpeedFastest
	case LevelBetter:
		return zstd.SpeedBetterCompression
	case LevelBest:
		return zstd.SpeedBestCompression
	default:
		return zstd.SpeedDefault
	}
}

// encoders holds one shared encoder per level (EncodeAll is safe for
// concurrent use and starts no goroutines).
var encoders sync.Map // Level -> *zstd.Encoder

func encoderAt(l Level) *zstd.Encoder {
	if enc, ok := encoders.Load(l); ok {
		return enc.(*zstd.Encoder)
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(l.speed()))
	if err != nil {
		panic(fmt.Sprintf("compression: the zstd encoder options are invalid: %v", err))
	}
	actual, _ := encoders.LoadOrStore(l, enc)
	return actual.(*zstd.Encoder)
}

// EncodeAt returns value compressed at level l as one zstd frame that
// records its content size.
func EncodeAt(value []byte, l Level) []byte {
	return encoderAt(l).EncodeAll(value, make([]byte, 0, len(value)/2+64))
}
