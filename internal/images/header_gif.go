package images

import "encoding/binary"

// readGIF walks the GIF blocks up to the trailer, counting image
// descriptors as frames, without decompressing any LZW data. A frame may
// reach past the logical screen, and decoders may grow their canvas to fit
// it, so the dimensions are those of the union of the screen and every frame.
func readGIF(b []byte) (header, error) {
	h := header{format: formatGIF, bands: 4, bytesPerSample: 1}
	if len(b) < 13 {
		return h, truncated(formatGIF, "file ends inside the screen descriptor")
	}
	h.width = int(binary.LittleEndian.Uint16(b[6:]))
	h.height = int(binary.LittleEndian.Uint16(b[8:]))
	i := 13
	if b[10]&0x80 != 0 {
		i += 3 << (int(b[10]&7) + 1)
	}
	for {
		if i >= len(b) {
			return h, truncated(formatGIF, "file ends before the trailer")
		}
		switch b[i] {
		case 0x3b:
			if h.frames == 0 {
				return h, corrupt(formatGIF, "no image in the file")
			}
			return h, nil
		case 0x21:
			if i+2 > len(b) {
				return h, truncated(formatGIF, "file ends inside an extension")
			}
			next, err := skipSubBlocks(b, i+2)
			if err != nil {
				return h, err
			}
			i = next
		case 0x2c:
			if i+10 > len(b) {
				return h, truncated(formatGIF, "file ends inside an image descriptor")
			}
			left := int(binary.LittleEndian.Uint16(b[i+1:]))
			top := int(binary.LittleEndian.Uint16(b[i+3:]))
			h.width = max(h.width, left+int(binary.LittleEndian.Uint16(b[i+5:])))
			h.height = max(h.height, top+int(binary.LittleEndian.Uint16(b[i+7:])))
			packed := b[i+9]
			i += 10
			if packed&0x80 != 0 {
				i += 3 << (int(packed&7) + 1)
			}
			i++ // LZW minimum code size
			next, err := skipSubBlocks(b, i)
			if err != nil {
				return h, err
			}
			i = next
			h.frames++
		default:
			return h, corrupt(formatGIF, "unknown block 0x%02X at byte %d", b[i], i)
		}
	}
}

// skipSubBlocks returns the index after the sub-block chain starting at i.
func skipSubBlocks(b []byte, i int) (int, error) {
	for {
		if i >= len(b) {
			return 0, truncated(formatGIF, "file ends inside a data sub-block chain")
		}
		n := int(b[i])
		i += 1 + n
		if n == 0 {
			return i, nil
		}
	}
}
