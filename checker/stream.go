package checker

// recorded is what a whole file records at all, for the rules that apply
// only where it does (HISTORY.md: "where the file records credits at all"):
// a piece of the file must be judged by the file's, not its own.
type recorded struct {
	charges, credits, notifies, sinkReads bool
}
