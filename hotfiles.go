package waitsim

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/waitsim/waitsim/limits"
	"github.com/waitsim/waitsim/scenario"
)

// hotFiles keeps the scenario files a hot process has loaded, for the
// requests after the one that loaded them: a hot request loads each file
// its order reaches, and most requests reach the same few files (one
// traced campaign, 2 December 2026: loading was a tenth of its hot
// processes' CPU). Loading is a function of the file's bytes, the load
// options and the loader's code (scenario.LoadFile reads nothing else). A
// request uses the kept loads only when it runs the cases of its mutant's
// site alone (results.HotRequest.Only): the runner says so only when the
// mutant's site never ran outside a case in the schemata binary's check,
// so loading never runs the mutated code, and every kept load was made,
// and is served, by the loader as it is (a mutant of the loader itself
// loads afresh and keeps nothing). A file whose bytes and options are
// those of a kept load gives that load's cases, each a deep copy (a world
// may not change the case it runs, but nothing enforces that): what a load
// of its own gives. A file that changed, that is past the size limit, or
// whose load found problems is loaded afresh.
type hotFiles struct {
	mu    sync.Mutex
	files map[string]hotFile
	loads int // loads of a file of its own (scenario.LoadFile), kept or not
}

// hotFile is one kept load.
type hotFile struct {
	src   []byte
	opts  []byte // the load options, as JSON
	cases []scenario.Case
}

// load is scenario.LoadFile(file, opts), from the kept load when it serves.
func (h *hotFiles) load(file string, opts scenario.Options) ([]scenario.Case, bool) {
	src, okSrc := h.read(file)
	key, err := json.Marshal(opts)
	if okSrc && err == nil {
		h.mu.Lock()
		f, ok := h.files[file]
		h.mu.Unlock()
		if ok && bytes.Equal(f.src, src) && bytes.Equal(f.opts, key) {
			return deepCopy(f.cases), true
		}
	}
	cases, problems := scenario.LoadFile(file, opts)
	h.mu.Lock()
	h.loads++
	h.mu.Unlock()
	if len(problems) > 0 {
		return nil, false
	}
	// Kept only when the file did not change while it was loaded.
	if again, ok := h.read(file); okSrc && err == nil && ok && bytes.Equal(again, src) {
		h.mu.Lock()
		if h.files == nil {
			h.files = map[string]hotFile{}
		}
		h.files[file] = hotFile{src: src, opts: key, cases: deepCopy(cases)}
		h.mu.Unlock()
	}
	return cases, true
}

// read is file's bytes, when it is a regular file within the scenario
// files' size limit (limits.ReadBytes).
func (h *hotFiles) read(file string) ([]byte, bool) {
	src, err := limits.ReadBytes(file, limits.Scenario)
	return src, err == nil
}

// deepCopy copies v and everything its exported fields reach (maps,
// slices, pointers, interfaces); an unexported field is copied as it is
// (scenario values have none).
func deepCopy[T any](v T) T {
	return copyValue(reflect.ValueOf(&v).Elem()).Interface().(T)
}

func copyValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(copyValue(v.Elem()))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(copyValue(v.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(copyValue(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(copyValue(it.Key()), copyValue(it.Value()))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields as they are
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(copyValue(v.Field(i)))
			}
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(copyValue(v.Index(i)))
		}
		return out
	}
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	return out
}
