package tier

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/targets/failpoint"
)

const testPoint = "tier-test-point"

func init() { failpoint.Register(testPoint) }

// The harness's client (faults) and the tier's admin endpoint agree on the
// wire: arm, fire, count, undo.
func TestFailpointOverAdmin(t *testing.T) {
	if faults.FailpointPath != FailpointPath {
		t.Fatalf("faults.FailpointPath %q, tier.FailpointPath %q", faults.FailpointPath, FailpointPath)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admin, err := ServeAdmin(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fp := faults.FailpointAt(admin, testPoint)
	if err := fp.Arm("sleep(1ms)"); err != nil {
		t.Fatal(err)
	}
	if err := fp.Arm("nonsense"); err == nil {
		t.Fatal("bad action accepted over HTTP")
	}
	if err := faults.FailpointAt(admin, "no-such-point").Arm("crash"); err == nil {
		t.Fatal("unknown point armed over HTTP")
	}
	_ = failpoint.Hit(testPoint)
	if n, err := fp.Fired(); err != nil || n != 1 {
		t.Fatalf("Fired = %d, %v; want 1", n, err)
	}
	if err := fp.Undo(); err != nil {
		t.Fatal(err)
	}
	_ = failpoint.Hit(testPoint)
	st, err := fp.Status()
	if err != nil || st.Fired != 1 || st.Passes != 2 || st.Armed != "" {
		t.Fatalf("after Undo: %+v, %v; want 1 fired, 2 passes, disarmed", st, err)
	}
	if _, err := faults.FailpointAt(admin, "no-such-point").Fired(); err == nil {
		t.Fatal("an unknown point's count read as 0")
	}
}

func TestAddrsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.addr")
	want := map[string]string{"http": "http://127.0.0.1:1", "admin": "http://127.0.0.1:2"}
	if err := WriteAddrs(path, want); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	got, err := ReadAddrs(ctx, path)
	if err != nil || len(got) != 2 || got["http"] != want["http"] || got["admin"] != want["admin"] {
		t.Fatalf("ReadAddrs = %v, %v; want %v", got, err, want)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	if _, err := ReadAddrs(ctx2, filepath.Join(t.TempDir(), "never")); err == nil {
		t.Fatal("ReadAddrs of a file never written returned")
	}
}
