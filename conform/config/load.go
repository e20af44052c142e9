package config

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// FieldError is one problem in a config file.
type FieldError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e FieldError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Errors is every problem found in one file.
type Errors []FieldError

func (es Errors) Error() string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}

// Load reads, decodes and validates a config file. Any error it returns is an
// Errors value naming file, line and field.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Errors{{File: path, Line: 0, Field: "(file)", Msg: err.Error()}}
	}
	return Parse(path, data)
}

var posRE = regexp.MustCompile(`^\[(\d+):(\d+)\]\s*(.*)`)

// Parse decodes and validates config text; name is used in errors.
func Parse(name string, data []byte) (*Config, error) {
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, Errors{yamlError(name, err)}
	}
	pos := map[string]int{}
	for _, doc := range f.Docs {
		if doc.Body != nil {
			walk(doc.Body, "", pos)
		}
	}
	var c Config
	if err := yaml.UnmarshalWithOptions(data, &c, yaml.DisallowUnknownField()); err != nil {
		fe := yamlError(name, err)
		if fe.Field == "(yaml)" {
			fe.Field = fieldAtLine(pos, fe.Line)
		}
		return nil, Errors{fe}
	}
	c.File = name
	c.Positions = pos
	if errs := c.Validate(); len(errs) > 0 {
		return nil, errs
	}
	return &c, nil
}

func yamlError(name string, err error) FieldError {
	fe := FieldError{File: name, Line: 1, Field: "(yaml)", Msg: err.Error()}
	if parseErr := (*yaml.SyntaxError)(nil); errors.As(err, &parseErr) {
		fe.Field = "(syntax)"
	}
	var ye yaml.Error
	if errors.As(err, &ye) {
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			fe.Line = tk.Position.Line
			fe.Field = fieldOfToken(ye.GetMessage())
		}
		fe.Msg = ye.GetMessage()
		return fe
	}
	if m := posRE.FindStringSubmatch(yaml.FormatError(err, false, false)); m != nil {
		fe.Line, _ = strconv.Atoi(m[1])
		fe.Msg = m[3]
	}
	return fe
}

var unknownRE = regexp.MustCompile(`unknown field "([^"]+)"`)

func fieldOfToken(msg string) string {
	if m := unknownRE.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return "(yaml)"
}

// walk records the line of every mapping key and sequence item by dotted path.
func walk(n ast.Node, path string, pos map[string]int) {
	switch v := n.(type) {
	case *ast.MappingNode:
		for _, mv := range v.Values {
			walkPair(mv, path, pos)
		}
	case *ast.MappingValueNode:
		walkPair(v, path, pos)
	case *ast.SequenceNode:
		for i, item := range v.Values {
			p := fmt.Sprintf("%s[%d]", path, i)
			if tk := item.GetToken(); tk != nil && tk.Position != nil {
				pos[p] = tk.Position.Line
			}
			walk(item, p, pos)
		}
	case *ast.TagNode:
		walk(v.Value, path, pos)
	case *ast.AnchorNode:
		walk(v.Value, path, pos)
	}
}

func walkPair(mv *ast.MappingValueNode, path string, pos map[string]int) {
	key := mv.Key.String()
	p := key
	if path != "" {
		p = path + "." + key
	}
	if tk := mv.Key.GetToken(); tk != nil && tk.Position != nil {
		pos[p] = tk.Position.Line
	}
	walk(mv.Value, p, pos)
}

// fieldAtLine names the deepest field whose key sits on line.
func fieldAtLine(pos map[string]int, line int) string {
	best := "(yaml)"
	for p, l := range pos {
		if l == line && (best == "(yaml)" || len(p) > len(best)) {
			best = p
		}
	}
	return best
}
