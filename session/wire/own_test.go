package wire

import (
	"reflect"
	"testing"
)

// TestOwnCopiesEveryField: the request encoding/json writes when a line
// is not lean is the request, whole: a field Request gains must be
// copied by own too.
func TestOwnCopiesEveryField(t *testing.T) {
	var req Request
	fill(reflect.ValueOf(&req).Elem())
	got := own(&req)
	if !reflect.DeepEqual(got, req) {
		t.Fatalf("own(req) = %+v, want %+v", got, req)
	}
	if got.Begin == req.Begin || got.End == req.End || got.Event == req.Event {
		t.Fatal("own(req) points to req's begin, end or event, not to copies")
	}
}

// fill sets every field v holds, to a value no zero value equals.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x-" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		v.SetMapIndex(k, e)
	}
}
