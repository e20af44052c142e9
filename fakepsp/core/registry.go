package core

import (
	"fmt"
	"sort"
	"sync"
)

var registry = struct {
	sync.Mutex
	m map[string]Dialect
}{m: map[string]Dialect{}}

// Register makes d available by its name; a dialect calls it from an init.
// A second dialect of the same name is a programming error.
func Register(d Dialect) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[d.Name()]; dup {
		panic(fmt.Sprintf("fakepsp/core: dialect %q registered twice", d.Name()))
	}
	registry.m[d.Name()] = d
}

// Lookup finds a registered dialect.
func Lookup(name string) (Dialect, error) {
	registry.Lock()
	defer registry.Unlock()
	if d, ok := registry.m[name]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("fakepsp: unknown PSP dialect %q (have %v)", name, dialectNamesLocked())
}

// Dialects lists the registered dialects' names, sorted.
func Dialects() []string {
	registry.Lock()
	defer registry.Unlock()
	return dialectNamesLocked()
}

func dialectNamesLocked() []string {
	out := make([]string, 0, len(registry.m))
	for n := range registry.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
