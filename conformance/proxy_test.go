package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waitsim/waitsim/packs/waitagents"
	"github.com/waitsim/waitsim/scenario"
)

// nginx gets the case's idle timeout as proxy_read_timeout, the leg's
// buffering, one foreground process whose files all lie in its directory,
// and the probe answer; no path of a system-wide nginx.
func TestNginxConfig(t *testing.T) {
	for _, buffered := range []bool{false, true} {
		l := ProxyLeg{Name: "nginx", Proxy: ProxyNginx, IdleTimeoutMs: 20000, Buffering: buffered}
		conf := nginxConfig(l, "/o/px", 4242, "127.0.0.1:5151", "tok")
		want := []string{"daemon off;", "master_process off;", "listen 127.0.0.1:4242;", "proxy_pass http://127.0.0.1:5151;",
			"proxy_read_timeout 20000ms;", "proxy_http_version 1.1;", `proxy_set_header Connection "";`,
			"location = " + probePath + " {", `return 200 "tok";`, "pid /o/px/nginx.pid;", "error_log /o/px/error.log"}
		if buffered {
			want = append(want, "proxy_buffering on;")
		} else {
			want = append(want, "proxy_buffering off;")
		}
		for _, w := range want {
			if !strings.Contains(conf, w) {
				t.Errorf("buffering %v: the config lacks %q:\n%s", buffered, w, conf)
			}
		}
		for _, line := range strings.Split(conf, "\n") {
			if strings.Contains(line, "/var/") || strings.Contains(line, "/etc/") || strings.Contains(line, "/run/") {
				t.Errorf("a system path: %q", line)
			}
		}
	}
}

// HAProxy gets the idle timeout as its server timeout, a client timeout
// beyond any case, and the probe answer; no tunnel timeout (it would not
// apply to SSE anyway).
func TestHAProxyConfig(t *testing.T) {
	conf := haproxyConfig(ProxyLeg{Name: "haproxy", Proxy: ProxyHAProxy, IdleTimeoutMs: 40000}, 4242, "127.0.0.1:5151", "tok")
	for _, w := range []string{"mode http", "timeout server 40000ms", "timeout client 600s", "bind 127.0.0.1:4242",
		"server serve 127.0.0.1:5151", `string "tok" if { path ` + probePath + " }", "log stderr"} {
		if !strings.Contains(conf, w) {
			t.Errorf("the config lacks %q:\n%s", w, conf)
		}
	}
	if strings.Contains(conf, "timeout tunnel") || strings.Contains(conf, "daemon") {
		t.Errorf("a tunnel timeout or a daemon:\n%s", conf)
	}
}

func TestProxyLegsNamed(t *testing.T) {
	legs, err := proxyLegsNamed([]string{"haproxy", "nginx"})
	if err != nil || len(legs) != 2 || legs[0].Name != "nginx" || legs[1].Name != "haproxy" {
		t.Errorf("got %+v, %v; want nginx then haproxy (ProxyLegs' order)", legs, err)
	}
	if _, err := proxyLegsNamed([]string{"envoy"}); !errors.Is(err, errNoProxyLeg) {
		t.Errorf("an unknown leg: %v", err)
	}
	if l := (&ProxyLeg{Proxy: ProxyNginx, IdleTimeoutMs: 20000, Buffering: true}).Label(); l != "nginx 20000 ms, buffering on" {
		t.Errorf("Label = %q", l)
	}
}

// loadCase loads one scenario file of body with the reference pack's rules.
func loadCase(t *testing.T, body string) []scenario.Case {
	t.Helper()
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte("# protects: x\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, err := waitagents.Reference().LoadOptions()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := scenario.Load([]string{p}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// A case with a proxy runs once per leg with the case's idle timeout, with
// the client its callers' profile names; without one, once directly; a
// world the runner cannot reproduce is an error, not a silent pass.
func TestWireJobs(t *testing.T) {
	const caller = "agents: [{id: c, state: running}]\ncallers:\n  - {name: A, profile: %s, args: {timeoutMs: 1000}}\n"
	world := func(transport, profile string) scenario.Case {
		return loadCase(t, "name: w\ntransport: "+transport+"\n"+strings.Replace(caller, "%s", profile, 1))[0]
	}
	js, err := wireJobs(world("{mode: sse, idleTimeoutMs: 20000}", "ts-sdk"), []string{ClientTS, ClientGo}, ProxyLegs)
	if err != nil || len(js) != len(ProxyLegs) {
		t.Fatalf("%d jobs, %v; want one per leg", len(js), err)
	}
	for i, j := range js {
		if j.client != ClientTS || j.transport != "sse" || j.leg == nil || j.leg.Name != ProxyLegs[i].Name || j.leg.IdleTimeoutMs != 20000 {
			t.Errorf("job %d: %+v, leg %+v", i, j, j.leg)
		}
	}
	if ProxyLegs[0].IdleTimeoutMs != 0 {
		t.Error("wireJobs wrote into ProxyLegs")
	}
	if js, err := wireJobs(world("{mode: stateless-json, idleTimeoutMs: 20000}", "go-sdk"), []string{ClientGo}, ProxyLegs[2:]); err != nil || len(js) != 1 || js[0].client != ClientGo || js[0].leg.Name != "haproxy" || rulesOf(js[0]).postSilent != true {
		t.Errorf("one leg, the Go client: %+v, %v", js, err)
	}
	if js, err := wireJobs(world("{mode: sse, idleTimeoutMs: 20000}", "ts-sdk"), []string{ClientGo}, ProxyLegs); err != nil || len(js) != 0 {
		t.Errorf("the TypeScript client left out: %d jobs, %v", len(js), err)
	}
	if js, err := wireJobs(world("{mode: json}", "go-sdk"), []string{ClientGo}, ProxyLegs); err != nil || len(js) != 1 || js[0].leg != nil {
		t.Errorf("no proxy: %+v, %v; want one direct run", js, err)
	}
	for name, c := range map[string]scenario.Case{
		"python":        world("{mode: sse, idleTimeoutMs: 20000}", "python-sdk"),
		"write timeout": world("{mode: sse, writeTimeoutMs: 20000}", "go-sdk"),
		"drops":         world("{mode: sse, dropAtMs: [1000]}", "go-sdk"),
		"protocol":      world("{mode: sse, protocol: 2025-11-25}", "go-sdk"),
		"two clients": loadCase(t, "name: w\ntransport: {mode: sse}\nagents: [{id: c, state: running}]\ncallers:\n"+
			"  - {name: A, profile: go-sdk, args: {timeoutMs: 1000}}\n  - {name: B, profile: ts-sdk, args: {timeoutMs: 1000}}\n")[0],
	} {
		if _, err := wireJobs(c, []string{ClientTS, ClientGo}, ProxyLegs); err == nil || !strings.Contains(err.Error(), "cannot reproduce") {
			t.Errorf("%s: %v; want an error", name, err)
		}
	}
}

// Runs that differ only in their proxy leg are summed up apart.
func TestSummarizeByProxy(t *testing.T) {
	ng, ha := ProxyLegs[0], ProxyLegs[2]
	rep := &Report{Results: []RunEntry{
		{Client: "go", Transport: "sse", Proxy: &ng, Agree: true, Calls: []CallComparison{{}}},
		{Client: "go", Transport: "sse", Proxy: &ha, Agree: true, Calls: []CallComparison{{}}},
		{Client: "go", Transport: "sse", Agree: true, Calls: []CallComparison{{}}},
	}}
	summarize(rep)
	if len(rep.Profiles) != 3 || rep.Profiles[0].Proxy != "" || rep.Profiles[1].Proxy != "haproxy" || rep.Profiles[2].Proxy != "nginx" {
		t.Errorf("profiles %+v; want none, haproxy, nginx", rep.Profiles)
	}
}
