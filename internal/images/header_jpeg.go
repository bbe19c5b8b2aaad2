package images

import (
	"bytes"
	"encoding/binary"
)

// readJPEG walks the JPEG segments up to the first scan, takes the
// dimensions from the first SOF marker and requires an EOI marker after the
// scan, which a truncated file lacks.
func readJPEG(b []byte) (header, error) {
	h := header{format: formatJPEG, frames: 1, bytesPerSample: 1}
	sof := false
	i := 2
	for {
		for i < len(b) && b[i] == 0xff && i+1 < len(b) && b[i+1] == 0xff {
			i++ // fill bytes
		}
		if i+2 > len(b) {
			return h, truncated(formatJPEG, "file ends before the first scan")
		}
		if b[i] != 0xff {
			return h, corrupt(formatJPEG, "expected a marker at byte %d", i)
		}
		m := b[i+1]
		i += 2
		if m == 0x01 || (m >= 0xd0 && m <= 0xd7) {
			continue // standalone markers
		}
		if m == 0xd8 || m == 0xd9 {
			return h, corrupt(formatJPEG, "marker 0x%02X before the first scan", m)
		}
		if i+2 > len(b) {
			return h, truncated(formatJPEG, "file ends inside segment 0x%02X", m)
		}
		n := int(binary.BigEndian.Uint16(b[i:]))
		if n < 2 {
			return h, corrupt(formatJPEG, "segment 0x%02X has length %d", m, n)
		}
		if i+n > len(b) {
			return h, truncated(formatJPEG, "file ends inside segment 0x%02X", m)
		}
		seg := b[i+2 : i+n]
		if isSOF(m) && !sof {
			if len(seg) < 6 {
				return h, corrupt(formatJPEG, "frame header is %d bytes long", len(seg))
			}
			if seg[0] > 8 {
				h.bytesPerSample = 2
			}
			h.height = int(binary.BigEndian.Uint16(seg[1:]))
			h.width = int(binary.BigEndian.Uint16(seg[3:]))
			h.bands = int(seg[5])
			if h.bands < 1 || h.bands > 4 {
				return h, corrupt(formatJPEG, "frame header declares %d components", h.bands)
			}
			sof = true
		}
		i += n
		if m == 0xda {
			break
		}
	}
	if !sof {
		return h, corrupt(formatJPEG, "no frame header before the first scan")
	}
	if bytes.LastIndex(b[i:], []byte{0xff, 0xd9}) < 0 {
		return h, truncated(formatJPEG, "no end-of-image marker after the scan")
	}
	return h, nil
}

// isSOF reports whether m is a start-of-frame marker (not DHT, JPG or DAC).
func isSOF(m byte) bool {
	return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc
}
