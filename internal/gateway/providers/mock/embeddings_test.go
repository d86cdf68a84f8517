package mock

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
	"testing"

	"github.com/tidwall/gjson"
)

// vectors decodes the embeddings of a response, float or base64.
func vectors(t *testing.T, resp gjson.Result) [][]float32 {
	t.Helper()
	var out [][]float32
	for i, d := range resp.Get("data").Array() {
		if d.Get("object").Str != "embedding" || d.Get("index").Int() != int64(i) {
			t.Errorf("data[%d] = object %q index %s", i, d.Get("object").Str, d.Get("index").Raw)
		}
		e := d.Get("embedding")
		var vec []float32
		switch {
		case e.IsArray():
			for _, v := range e.Array() {
				vec = append(vec, float32(v.Num))
			}
		case e.Type == gjson.String:
			raw, err := base64.StdEncoding.DecodeString(e.Str)
			if err != nil || len(raw)%4 != 0 {
				t.Fatalf("data[%d]: bad base64 embedding %q: %v", i, e.Str, err)
			}
			for j := 0; j < len(raw); j += 4 {
				vec = append(vec, math.Float32frombits(binary.LittleEndian.Uint32(raw[j:])))
			}
		default:
			t.Fatalf("data[%d]: embedding is %s", i, e.Raw)
		}
		out = append(out, vec)
	}
	return out
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestEmbeddings(t *testing.T) {
	tests := []struct {
		name       string
		opts       Options
		body       string
		wantCount  int
		wantDims   int
		wantTokens int64
	}{
		{"string", Options{}, `{"model":"mock-embedding","input":"hello world"}`, 1, 16, 3},
		{"array", Options{}, `{"model":"mock-embedding","input":["a","bb","hello world"]}`, 3, 16, 5},
		{"base64", Options{}, `{"model":"mock-embedding","input":["a","hello"],"encoding_format":"base64"}`, 2, 16, 3},
		{"dimensions", Options{}, `{"model":"mock-embedding","input":"x","dimensions":256,"encoding_format":"base64"}`, 1, 256, 1},
		{"option dimensions", Options{EmbeddingDimensions: 7}, `{"model":"mock-embedding","input":"x","encoding_format":"float"}`, 1, 7, 1},
		{"token array", Options{}, `{"model":"mock-embedding","input":[1,2,3]}`, 1, 16, 3},
		{"token arrays", Options{}, `{"model":"mock-embedding","input":[[1,2],[3]]}`, 2, 16, 3},
		{"custom model", Options{EmbeddingModels: []string{"e5"}}, `{"model":"e5","input":"x"}`, 1, 16, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, tt.opts, http.MethodPost, "/v1/embeddings", tt.body)
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, body %s", rec.Code, rec.Body)
			}
			resp := mustJSON(t, rec.Body.String())
			if resp.Get("object").Str != "list" || resp.Get("model").Str != gjson.Get(tt.body, "model").Str {
				t.Errorf("object/model = %s/%s", resp.Get("object").Raw, resp.Get("model").Raw)
			}
			vecs := vectors(t, resp)
			if len(vecs) != tt.wantCount {
				t.Fatalf("%d embeddings, want %d", len(vecs), tt.wantCount)
			}
			for i, v := range vecs {
				if len(v) != tt.wantDims {
					t.Errorf("embedding %d has %d dimensions, want %d", i, len(v), tt.wantDims)
				}
				if n := norm(v); math.Abs(n-1) > 1e-5 {
					t.Errorf("embedding %d norm = %v", i, n)
				}
			}
			if p, tot := resp.Get("usage.prompt_tokens").Int(), resp.Get("usage.total_tokens").Int(); p != tt.wantTokens || tot != tt.wantTokens {
				t.Errorf("usage = %s, want %d tokens", resp.Get("usage").Raw, tt.wantTokens)
			}
		})
	}
}

func TestEmbeddingsDeterministic(t *testing.T) {
	get := func(body string) [][]float32 {
		return vectors(t, mustJSON(t, do(t, Options{}, http.MethodPost, "/v1/embeddings", body).Body.String()))
	}
	floats := get(`{"model":"mock-embedding","input":["same","other","same"]}`)
	b64 := get(`{"model":"mock-embedding","input":["same","other","same"],"encoding_format":"base64"}`)
	for i := range floats {
		for j := range floats[i] {
			if floats[i][j] != b64[i][j] {
				t.Fatalf("float and base64 differ at [%d][%d]: %v vs %v", i, j, floats[i][j], b64[i][j])
			}
		}
	}
	if floats[0][0] != floats[2][0] || floats[0][5] != floats[2][5] {
		t.Errorf("same input, different vectors")
	}
	if floats[0][0] == floats[1][0] && floats[0][1] == floats[1][1] {
		t.Errorf("different inputs, same vectors")
	}
	tokens := get(`{"model":"mock-embedding","input":[1,23]}`)
	text := get(`{"model":"mock-embedding","input":"1 23"}`)
	if tokens[0][0] != text[0][0] {
		t.Errorf("token array not embedded as the text of its numbers")
	}
}

func TestEmbeddingErrors(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		status int
	}{
		{"missing input", `{"model":"mock-embedding"}`, 400},
		{"empty string", `{"model":"mock-embedding","input":""}`, 400},
		{"empty array", `{"model":"mock-embedding","input":[]}`, 400},
		{"empty string in array", `{"model":"mock-embedding","input":["a",""]}`, 400},
		{"object input", `{"model":"mock-embedding","input":{"a":1}}`, 400},
		{"mixed array", `{"model":"mock-embedding","input":["a",1]}`, 400},
		{"bad dimensions", `{"model":"mock-embedding","input":"a","dimensions":0}`, 400},
		{"bad encoding", `{"model":"mock-embedding","input":"a","encoding_format":"hex"}`, 400},
		{"missing model", `{"input":"a"}`, 400},
		{"chat model", `{"model":"mock-chat","input":"a"}`, 404},
		{"bad json", `{"model":`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, Options{}, http.MethodPost, "/v1/embeddings", tt.body)
			if rec.Code != tt.status {
				t.Errorf("status = %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			checkErrorBody(t, rec.Body.String())
		})
	}
}
