package translate

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func TestWriter(t *testing.T) {
	var w Writer
	w.Obj()
	w.KeyStr("s", "a\"b")
	w.Key("a")
	w.Arr()
	w.Int(1)
	w.Bool(true)
	w.Null()
	w.RawStr(gjson.Parse(`"raw\u00e9"`))
	w.RawStr(gjson.Parse(`12`))
	w.Escaped([]byte(`x\ny`))
	w.StrBytes([]byte("b"))
	w.EndArr()
	m := w.Mark()
	w.KeyRaw("dropped", "{}")
	w.Rollback(m)
	w.Key("o")
	w.RawOr(gjson.Result{}, `{}`)
	w.Key("n")
	w.RawOrNull(gjson.Result{})
	w.Fields([]byte(`"f":1,"g":2`))
	w.EndObj()
	want := `{"s":"a\"b","a":[1,true,null,"raw\u00e9","12","x\ny","b"],"o":{},"n":null,"f":1,"g":2}`
	if got := string(w.Buf); got != want {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	if !gjson.ValidBytes(w.Buf) {
		t.Fatal("invalid JSON")
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "\n\r\t\b\f\x00\x1f", "é✓😀", "\u2028\u2029",
		"bad \xff\xfe utf8", "<html>&", string([]byte{0xe2, 0x82})} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q → %s: %v", s, got, err)
		}
		var want string
		m, _ := json.Marshal(s)
		_ = json.Unmarshal(m, &want)
		if back != want {
			t.Fatalf("%q → %q, want %q", s, back, want)
		}
		if bytes.ContainsAny(got, "\n\r\u2028") {
			t.Fatalf("raw line break in %s", got)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff", "\u2028", "line\nbreak"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil {
			t.Fatal(err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q → %q", s, back)
		}
	})
}
