package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/checker"
	"github.com/idemcheck/idemcheck/checker/history"
	"github.com/idemcheck/idemcheck/conform/driver"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// render opens page in a real headless browser (ci/install-deps installs
// Chromium) and returns the text the page shows once its script has drawn
// the timeline, and a screenshot's size: what a person sees, not the file.
func render(t *testing.T, page string) (string, int64) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium not found (bash ci/install-deps installs it): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	shot := filepath.Join(t.TempDir(), "page.png")
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,700", "--user-data-dir=" + t.TempDir()}
	if out, err := exec.CommandContext(ctx, bin, append(flags, "--screenshot="+shot, "file://"+page)...).CombinedOutput(); err != nil {
		t.Fatalf("screenshot: %v: %s", err, out)
	}
	st, err := os.Stat(shot)
	if err != nil {
		t.Fatal(err)
	}
	dom, err := exec.CommandContext(ctx, bin, append(flags, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("dump the rendered page: %v", err)
	}
	// The drawn text: the caption's and every SVG text element's.
	var shown []string
	for _, m := range regexp.MustCompile(`<(?:p id="idemcheck-caption"[^>]*|text[^>]*)>([^<]+)<`).FindAllStringSubmatch(string(dom), -1) {
		shown = append(shown, m[1])
	}
	return strings.Join(shown, "\n"), st.Size()
}

// TestPicturesAsABrowserDrawsThem: the picture of a cross-caller finding
// shows both callers' requests and says the finding in words; the picture
// of a double charge shows both PSP charges. Checked in the page a browser
// rendered, with a screenshot taken.
func TestPicturesAsABrowserDrawsThem(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	dir := t.TempDir()

	in1, in2 := "payments:u1:K1", "payments:u2:K1"
	create := func(process, intent, pay string, at time.Duration) history.Op {
		return history.Op{Process: process, Op: history.OpCreate, Call: t0.Add(at).UnixNano(), Return: history.Int64(t0.Add(at + 40*time.Millisecond).UnixNano()),
			Intent: intent, Input: history.Input{Fingerprint: "f-" + process, Amount: history.Int64(1002), Currency: "USD"},
			Output: &history.Output{Outcome: history.OutcomeSucceeded, PaymentID: pay}}
	}
	u1, u2 := create("client-u1", in1, "pay_u1", 0), create("client-u2", in2, "pay_u1", 100*time.Millisecond)
	atts := []*driver.Attempt{
		{Seq: 1, Step: "u1 uses the key", Caller: "u1", Intent: in1, Call: u1.Call, Return: *u1.Return, Status: 200, Outcome: history.OutcomeSucceeded, PaymentID: "pay_u1"},
		{Seq: 2, Step: "u2 uses the same key", Caller: "u2", Intent: in2, Call: u2.Call, Return: *u2.Return, Status: 200, Outcome: history.OutcomeSucceeded, PaymentID: "pay_u1"},
	}
	cross := scenario.Finding{Level: scenario.Safety, Kind: checker.KindInconsistentAnswer, Message: "u2 received u1's answer: payment pay_u1", Intent: in2}
	rel, why := picture(dir, scenario.Result{ID: "A6", Ops: history.History{u1, u2}}, 1, cross, atts)
	if rel == "" {
		t.Fatalf("no picture: %s", why)
	}
	shown, size := render(t, filepath.Join(dir, rel))
	for _, want := range []string{"inconsistent-answer: u2 received u1's answer: payment pay_u1", "client-u2", "other intents' requests", "u1: 200 succeeded pay_u1"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the rendered cross-caller picture does not show %q; it shows:\n%s", want, shown)
		}
	}
	if size < 10_000 {
		t.Errorf("the screenshot is %d bytes: nothing drawn", size)
	}

	charge := func(key, id string, at time.Duration) history.Op {
		return history.Op{Process: "psp", Op: history.OpCharge, Call: t0.Add(at).UnixNano(), Return: history.Int64(t0.Add(at).UnixNano()), Intent: in1,
			Input: history.Input{PSPKey: key, Amount: history.Int64(1002)}, Output: &history.Output{ChargeID: id}}
	}
	c1, c2 := charge("pay_u1:charge", "ch_first", 10*time.Millisecond), charge("pay_u1:retry", "ch_second", 60*time.Millisecond)
	double := scenario.Finding{Level: scenario.Safety, Kind: checker.KindDoubleCharge, Message: "the PSP charged the intent twice: ch_first, ch_second", Intent: in1, Charges: []history.Op{c1, c2}}
	rel, why = picture(dir, scenario.Result{ID: "A1", Ops: history.History{u1, c1, c2}}, 1, double, atts[:1])
	if rel == "" {
		t.Fatalf("no picture: %s", why)
	}
	shown, _ = render(t, filepath.Join(dir, rel))
	for _, want := range []string{"double-charge: the PSP charged the intent twice", "ch_first", "ch_second"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the rendered double-charge picture does not show %q; it shows:\n%s", want, shown)
		}
	}
}
