package mock

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// embeddingResponse is the POST /embeddings response body.
type embeddingResponse struct {
	Object string          `json:"object"`
	Data   []embeddingData `json:"data"`
	Model  string          `json:"model"`
	Usage  embeddingUsage  `json:"usage"`
}

type embeddingData struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"` // []float32, or a base64 string
}

type embeddingUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// embeddingInput is one input to embed and its token count.
type embeddingInput struct {
	text   string
	tokens int
}

// handleEmbeddings serves POST /embeddings.
func (h *handler) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	root, _, ok := readJSON(w, r)
	if !ok {
		return
	}
	model := root.Get("model")
	if model.Type != gjson.String || model.Str == "" {
		writeError(w, missingModel())
		return
	}
	if !h.embeddingModels[model.Str] {
		writeError(w, modelNotFound(model.Str))
		return
	}
	inputs, apiErr := parseEmbeddingInput(root.Get("input"))
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}

	dims := h.opts.EmbeddingDimensions
	if d := root.Get("dimensions"); d.Exists() && d.Type != gjson.Null {
		if d.Type != gjson.Number || d.Num < 1 || d.Num > maxEmbeddingDimensions || d.Num != math.Trunc(d.Num) {
			writeError(w, invalidRequest("dimensions", "Invalid 'dimensions': expected an integer between 1 and %d.", maxEmbeddingDimensions))
			return
		}
		dims = int(d.Num)
	}

	useBase64 := false
	switch f := root.Get("encoding_format"); {
	case !f.Exists() || f.Type == gjson.Null || f.Str == "float":
	case f.Str == "base64":
		useBase64 = true
	default:
		writeError(w, invalidRequest("encoding_format", "Invalid value for 'encoding_format': expected 'float' or 'base64'."))
		return
	}

	resp := embeddingResponse{Object: "list", Data: make([]embeddingData, len(inputs)), Model: model.Str}
	for i, in := range inputs {
		vec := embed(in.text, dims)
		var e any = vec
		if useBase64 {
			e = encodeFloat32s(vec)
		}
		resp.Data[i] = embeddingData{Object: "embedding", Index: i, Embedding: e}
		resp.Usage.PromptTokens += in.tokens
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	writeJSON(w, http.StatusOK, resp)
}

// parseEmbeddingInput accepts a string, an array of strings, an array of
// token ids, or an array of arrays of token ids. A token array is embedded
// as the text of its numbers joined with spaces and counts one token per id.
func parseEmbeddingInput(input gjson.Result) ([]embeddingInput, *apiError) {
	invalid := invalidRequest("input", "Invalid 'input': expected a non-empty string, an array of non-empty strings, or an array of token arrays.")
	switch {
	case !input.Exists() || input.Type == gjson.Null:
		return nil, invalidRequest("input", "Missing required parameter: 'input'.")
	case input.Type == gjson.String:
		if input.Str == "" {
			return nil, invalid
		}
		return []embeddingInput{{input.Str, max(estimateTokens(input.Str), 1)}}, nil
	case !input.IsArray():
		return nil, invalid
	}
	items := input.Array()
	if len(items) == 0 {
		return nil, invalid
	}
	if text, n, ok := tokenText(items); ok {
		return []embeddingInput{{text, n}}, nil
	}
	out := make([]embeddingInput, 0, len(items))
	for _, it := range items {
		switch {
		case it.Type == gjson.String && it.Str != "":
			out = append(out, embeddingInput{it.Str, max(estimateTokens(it.Str), 1)})
		case it.IsArray():
			text, n, ok := tokenText(it.Array())
			if !ok {
				return nil, invalid
			}
			out = append(out, embeddingInput{text, n})
		default:
			return nil, invalid
		}
	}
	return out, nil
}

// tokenText joins a non-empty array of integer token ids into text.
func tokenText(items []gjson.Result) (string, int, bool) {
	if len(items) == 0 {
		return "", 0, false
	}
	parts := make([]string, len(items))
	for i, it := range items {
		if it.Type != gjson.Number || it.Num != math.Trunc(it.Num) {
			return "", 0, false
		}
		parts[i] = strconv.FormatInt(it.Int(), 10)
	}
	return strings.Join(parts, " "), len(items), true
}

// embed returns a deterministic L2-normalised vector of length dims,
// seeded from a hash of text.
func embed(text string, dims int) []float32 {
	sum := sha256.Sum256([]byte(text))
	state := binary.LittleEndian.Uint64(sum[:8])
	raw := make([]float64, dims)
	var norm float64
	for i := range raw {
		state += 0x9e3779b97f4a7c15 // splitmix64
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		v := float64(z>>11)/(1<<53)*2 - 1 // [-1, 1)
		raw[i] = v
		norm += v * v
	}
	norm = math.Sqrt(norm)
	vec := make([]float32, dims)
	for i, v := range raw {
		if norm == 0 {
			v = 1 / math.Sqrt(float64(dims))
		} else {
			v /= norm
		}
		vec[i] = float32(v)
	}
	return vec
}

// encodeFloat32s returns the base64 of vec as little-endian float32s, the
// form OpenAI uses for encoding_format "base64".
func encodeFloat32s(vec []float32) string {
	b := make([]byte, 4*len(vec))
	for i, v := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return base64.StdEncoding.EncodeToString(b)
}
