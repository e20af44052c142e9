package survey

// Column is one safety check of the table.
type Column struct {
	ID    string
	Fault string
}

// Columns are the faults the survey puts every implementation through, in
// the table's order (docs/SCENARIOS.md names each check).
var Columns = []Column{
	{"A2", "concurrent copies"},
	{"A1", "lost PSP reply"},
	{"A7", "lost client reply"},
	{"S-restart", "restart"},
	{"A3", "kill after charge (PSP call in flight)"},
	{"S-5xx-after-charge", "PSP 500 after charge"},
	{"A6", "other caller, same key"},
	{"A5", "reordered body"},
	{"P-expiry", "key expiry"},
}

// ColumnIDs are the columns' check IDs.
func ColumnIDs() []string {
	var out []string
	for _, c := range Columns {
		out = append(out, c.ID)
	}
	return out
}
