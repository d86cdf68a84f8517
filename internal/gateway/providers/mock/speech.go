package mock

import (
	"encoding/binary"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// Audio the mock synthesises: a 440 Hz tone whose length grows with the
// input text, so answers depend only on the request.
const (
	speechSampleRate = 24000 // Hz, 16-bit mono, as OpenAI's pcm format
	speechToneHz     = 440
	speechBaseMS     = 100 // length of an empty input
	speechPerRuneMS  = 10  // added per input character
	speechMaxMS      = 5000
)

// mp3Frame is one MPEG-1 Layer III frame header (128 kbit/s, 44.1 kHz,
// mono, no CRC) followed by zeroed side information and main data: a
// valid frame that decodes to silence. A frame is 1152 samples long.
var mp3FrameHeader = [4]byte{0xFF, 0xFB, 0x90, 0xC0}

const (
	mp3FrameBytes   = 417 // 144 × 128000 / 44100, no padding
	mp3FrameSamples = 1152
	mp3SampleRate   = 44100
)

// handleSpeech serves POST /audio/speech: mp3 (the default), wav or pcm
// audio of the input text, whole or, with stream_format "sse", as a
// stream of events.
func (h *handler) handleSpeech(w http.ResponseWriter, r *http.Request) {
	root, _, ok := readJSON(w, r)
	if !ok {
		return
	}
	model := root.Get("model")
	if !model.Exists() || model.String() == "" {
		writeError(w, missingModel())
		return
	}
	if !h.speechModels[model.String()] {
		writeError(w, modelNotFound(model.String()))
		return
	}
	input := root.Get("input")
	if input.Type == 0 || input.String() == "" {
		writeError(w, invalidRequest("input", "Missing required parameter: 'input'."))
		return
	}
	if v := root.Get("voice"); !v.Exists() || (v.String() == "" && !v.IsObject()) {
		writeError(w, invalidRequest("voice", "Missing required parameter: 'voice'."))
		return
	}
	sse := false
	switch f := root.Get("stream_format").String(); f {
	case "", "audio":
	case "sse":
		sse = true
	default:
		writeError(w, invalidRequest("stream_format", "Invalid stream_format %q: use audio or sse.", f))
		return
	}
	runes := utf8.RuneCountInString(input.String())
	ms := min(speechBaseMS+speechPerRuneMS*runes, speechMaxMS)
	var body []byte
	var ct string
	switch f := root.Get("response_format").String(); f {
	case "", "mp3":
		body, ct = mp3Silence(ms), "audio/mpeg"
	case "wav":
		body, ct = wavFile(tonePCM(ms)), "audio/wav"
	case "pcm":
		body, ct = tonePCM(ms), "audio/pcm"
	default:
		writeError(w, invalidRequest("response_format",
			"The mock provider produces mp3, wav or pcm audio, not %q.", f))
		return
	}
	if sse {
		writeEvents(w, r, speechEvents(body, int64(runes/4+1)))
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// tonePCM returns ms milliseconds of the tone as 16-bit little-endian
// mono samples at speechSampleRate.
func tonePCM(ms int) []byte {
	n := speechSampleRate * ms / 1000
	out := make([]byte, 2*n)
	for i := range n {
		v := int16(8000 * math.Sin(2*math.Pi*speechToneHz*float64(i)/speechSampleRate))
		binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
	}
	return out
}

// wavFile wraps 16-bit mono samples at speechSampleRate in a RIFF/WAVE
// header.
func wavFile(pcm []byte) []byte {
	out := make([]byte, 44, 44+len(pcm))
	copy(out[0:], "RIFF")
	binary.LittleEndian.PutUint32(out[4:], uint32(36+len(pcm)))
	copy(out[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(out[16:], 16) // fmt chunk size
	binary.LittleEndian.PutUint16(out[20:], 1)  // PCM
	binary.LittleEndian.PutUint16(out[22:], 1)  // mono
	binary.LittleEndian.PutUint32(out[24:], speechSampleRate)
	binary.LittleEndian.PutUint32(out[28:], speechSampleRate*2) // byte rate
	binary.LittleEndian.PutUint16(out[32:], 2)                  // block align
	binary.LittleEndian.PutUint16(out[34:], 16)                 // bits per sample
	copy(out[36:], "data")
	binary.LittleEndian.PutUint32(out[40:], uint32(len(pcm)))
	return append(out, pcm...)
}

// mp3Silence returns at least ms milliseconds of silent MP3 frames.
func mp3Silence(ms int) []byte {
	frames := max(1, (ms*mp3SampleRate/1000+mp3FrameSamples-1)/mp3FrameSamples)
	out := make([]byte, frames*mp3FrameBytes)
	for i := range frames {
		copy(out[i*mp3FrameBytes:], mp3FrameHeader[:])
	}
	return out
}
