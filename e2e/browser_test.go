package e2e

// A real headless Chromium driven over the DevTools protocol (chromedp),
// for the dashboard tests: one tab, every console error, uncaught
// exception and network request it makes recorded, screenshots on demand.

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath returns the Chromium binary the browser tests use:
// $MODELGATE_CHROMIUM, else chromium or chromium-browser on the PATH, or ""
// when there is none.
func chromiumPath() string {
	if p := os.Getenv("MODELGATE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// skipWithoutChromium skips the test when Chromium is not installed, or
// fails it when MODELGATE_REQUIRE_CHROMIUM is set (as CI does).
func skipWithoutChromium(t *testing.T) {
	t.Helper()
	if chromiumPath() != "" {
		return
	}
	const msg = "Chromium is not installed (apt-get install chromium, or set MODELGATE_CHROMIUM)"
	if os.Getenv("MODELGATE_REQUIRE_CHROMIUM") != "" {
		t.Fatal(msg + " and MODELGATE_REQUIRE_CHROMIUM is set")
	}
	t.Skip(msg + ": skipping the browser test")
}

// screenshotDir is where the dashboard tests write their screenshots:
// $MODELGATE_SCREENSHOTS, else e2e/screenshots (git-ignored).
func screenshotDir() string {
	if d := os.Getenv("MODELGATE_SCREENSHOTS"); d != "" {
		return d
	}
	return "screenshots"
}

// browser is one headless Chromium tab and what it has done.
type browser struct {
	ctx    context.Context
	origin string

	mu        sync.Mutex
	problems  []string // console errors and uncaught exceptions
	requests  []string // every URL requested
	responses map[string]int64
}

// newBrowser starts a fresh Chromium (its own user data dir) with one tab
// and records what the tab does; origin is the only origin it may reach.
// The test is skipped when Chromium is not installed.
func newBrowser(t *testing.T, origin string) *browser {
	t.Helper()
	path := chromiumPath()
	skipWithoutChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{origin: origin, responses: map[string]int64{}}
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithListener(b.record))
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	b.ctx = ctx
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium %s: %v", path, err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return b
}

// record keeps the events of the tab that the tests check.
func (b *browser) record(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, fmt.Sprint(a.Description, string(a.Value)))
			}
			b.problems = append(b.problems, "console."+string(ev.Type)+": "+strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		b.problems = append(b.problems, "exception: "+msg)
	case *log.EventEntryAdded:
		// Failed loads are logged with source "network"; the tests judge
		// those by status (some are expected, such as the 401 of a wrong
		// key). Anything else at error level (CSP violations, ...) counts.
		if ev.Entry.Level == log.EntryLevelError && ev.Entry.Source != log.EntrySourceNetwork {
			b.problems = append(b.problems, "log "+string(ev.Entry.Source)+": "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, ev.Request.URL)
	case *network.EventResponseReceived:
		b.responses[ev.Response.URL] = ev.Response.Status
	}
}

// checkClean fails the test for any console error, uncaught exception or
// request that left the gateway's origin.
func (b *browser) checkClean(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme+"://"+u.Host != b.origin && u.Scheme != "data" && u.Scheme != "blob") {
			t.Errorf("request to another origin: %s", r)
		}
	}
	if len(b.requests) == 0 {
		t.Error("no request recorded: the network listener is not working")
	}
}

// requestCount returns how many requests the tab has made to paths
// starting with prefix.
func (b *browser) requestCount(prefix string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, r := range b.requests {
		if strings.HasPrefix(r, b.origin+prefix) {
			n++
		}
	}
	return n
}

// do runs actions in the tab, failing the test on an error.
func (b *browser) do(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression and decodes its value into T.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript expression until it is truthy, failing the
// test after timeout with what, and the page's text for context.
func (b *browser) waitFor(t *testing.T, what, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string]("document.body ? document.body.innerText.slice(0, 1500) : ''"))
			t.Fatalf("timed out waiting for %s (%s); err %v; page:\n%s", what, expr, err, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// open navigates to path on the gateway and waits for the page to draw
// its data.
func (b *browser) open(t *testing.T, path, page string) {
	t.Helper()
	b.do(t, "open "+path, chromedp.Navigate(b.origin+path))
	b.waitFor(t, "page "+page+" ready", `document.body.dataset.ready === "`+page+`"`, 15*time.Second)
}

// viewport sets the tab's size (mobile emulation below 600 px) and colour
// scheme.
func (b *browser) viewport(t *testing.T, width, height int64, dark bool) {
	t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	_, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: width, Height: height, DeviceScaleFactor: 1, Mobile: width < 600,
	})
	if err == nil {
		_, err = chromedp.Call(b.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// screenshot saves a full-page PNG under screenshotDir.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := screenshotDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
