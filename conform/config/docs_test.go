package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// field is one YAML field of the config: its dotted path (a list item is
// "[]") and the top-level block it sits in.
type field struct {
	path, tag, top string
	group          bool // a struct (or list of structs) whose fields are listed too
}

// yamlFields walks t by reflection, following the yaml tags. A struct type
// met a second time (Request under lookup and refund) is not walked again:
// its fields are documented once, under its first path.
func yamlFields(t reflect.Type, prefix, top string, seen map[reflect.Type]bool, out *[]field) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	if seen[t] {
		return
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		p, tp := tag, top
		if prefix != "" {
			p = prefix + "." + tag
		} else {
			tp = tag
		}
		*out = append(*out, field{path: p, tag: tag, top: tp, group: isStruct(f.Type) && prefix != ""})
		yamlFields(f.Type, p, tp, seen, out)
	}
}

func isStruct(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

func configFields() []field {
	var out []field
	yamlFields(reflect.TypeOf(Config{}), "", "", map[reflect.Type]bool{}, &out)
	return out
}

// starterBlocks splits the starter into its top-level blocks, commented or
// not, keyed by the top-level field.
func starterBlocks() map[string]string {
	top := regexp.MustCompile(`^(?:# ?)?([a-z_0-9]+):(\s|$)`)
	blocks := map[string]string{}
	cur := ""
	for _, line := range strings.Split(Starter, "\n") {
		if m := top.FindStringSubmatch(line); m != nil {
			cur = m[1]
		}
		blocks[cur] += line + "\n"
	}
	return blocks
}

// TestEveryFieldDocumented: every yaml field of the config is in
// docs/CONFIG.md (by its dotted path, in backticks) and in the starter
// `idemcheck run --init` writes (as a key, commented or not, inside its
// top-level block), which says every field is documented there.
func TestEveryFieldDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "CONFIG.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	blocks := starterBlocks()
	fs := configFields()
	if len(fs) < 40 {
		t.Fatalf("only %d fields found: the walk is wrong", len(fs))
	}
	for _, f := range fs {
		// A nested group (create.key) is documented by its fields' rows.
		if !f.group && !strings.Contains(doc, "`"+f.path+"`") {
			t.Errorf("config field %s is not documented in docs/CONFIG.md", f.path)
		}
		if !regexp.MustCompile(`(^|[\s{,#])` + regexp.QuoteMeta(f.tag) + `:`).MatchString(blocks[f.top]) {
			t.Errorf("config field %s is missing from the init template (conform/config/starter.go)", f.path)
		}
	}
}
