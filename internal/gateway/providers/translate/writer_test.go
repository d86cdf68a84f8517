package translate

import (
	"testing"

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
