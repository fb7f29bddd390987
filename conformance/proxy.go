package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Proxies a proxied case runs through (Debian's packages; `make conformance`
// installs them with apt-get when missing).
const (
	ProxyNginx   = "nginx"
	ProxyHAProxy = "haproxy"
)

// ProxyLeg is one reverse proxy between a real client and `waitsim serve`:
// which proxy, its version, its idle timeout (the case's
// transport.idleTimeoutMs: nginx's proxy_read_timeout, HAProxy's timeout
// server) and whether it buffers responses (nginx's proxy_buffering; HAProxy
// forwards a response as it arrives and has no such switch).
type ProxyLeg struct {
	// Name is the leg's name in --proxies and in the table: "nginx",
	// "nginx-buffered" or "haproxy".
	Name          string `json:"name"`
	Proxy         string `json:"proxy"`
	Version       string `json:"version,omitempty"`
	IdleTimeoutMs int64  `json:"idleTimeoutMs"`
	Buffering     bool   `json:"buffering"`
	// HoldMs is how long the proxy may hold a small chunk of a response
	// (a progress notification on an SSE stream) before it passes it on,
	// which the simulation does not model; the judge allows it on a note's
	// arrival (CallComparison.NoteDelayMs). HAProxy 2.6 with its default
	// configuration waits for more data before it sends a partial packet:
	// measured on this project's machine with a Go server that flushes one
	// SSE event a second, each event reached the client 204–210 ms after
	// it was sent through HAProxy 2.6.12 and 1–2 ms after with `option
	// http-no-delay` (and the Go client's notes in the conformance run came
	// 209 and 225 ms late through HAProxy, 12 and 15 ms through nginx).
	HoldMs float64 `json:"holdMs,omitempty"`
}

// Label is the leg in one short text, e.g. "nginx 20000 ms, buffering off".
func (p *ProxyLeg) Label() string {
	if p == nil {
		return ""
	}
	b := "off"
	if p.Buffering {
		b = "on"
	}
	return fmt.Sprintf("%s %d ms, buffering %s", p.Proxy, p.IdleTimeoutMs, b)
}

// ProxyLegs are the legs every proxied case runs through, by name: nginx as
// one puts it in front of an SSE server (proxy_buffering off), nginx with its
// default buffering, and HAProxy.
var ProxyLegs = []ProxyLeg{
	{Name: "nginx", Proxy: ProxyNginx},
	{Name: "nginx-buffered", Proxy: ProxyNginx, Buffering: true},
	{Name: "haproxy", Proxy: ProxyHAProxy, HoldMs: haproxyHoldMs},
}

// haproxyHoldMs is HAProxy's hold of a small chunk (ProxyLeg.HoldMs): the
// largest of the 204–210 ms measured there.
const haproxyHoldMs = 210

// ProxyLegNames lists ProxyLegs' names in order.
func ProxyLegNames() []string {
	names := make([]string, len(ProxyLegs))
	for i, l := range ProxyLegs {
		names[i] = l.Name
	}
	return names
}

// proxyStopWait bounds how long a proxy may take to exit after SIGTERM
// before it is killed; proxyStartWait how long it may take to listen.
const (
	proxyStopWait  = 5 * time.Second
	proxyStartWait = 10 * time.Second
)

// proxyBinary finds a proxy's program: on PATH, or in /usr/sbin (where
// Debian puts both, off a plain user's PATH).
func proxyBinary(proxy string) (string, error) {
	if p, err := exec.LookPath(proxy); err == nil {
		return p, nil
	}
	p := filepath.Join("/usr/sbin", proxy)
	if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", fmt.Errorf("%s is not installed (make conformance installs Debian's package with apt-get)", proxy)
}

var (
	versionMu sync.Mutex
	versions  = map[string]string{}
)

// proxyVersion is what the proxy says of its version, e.g. "nginx/1.22.1"
// or "HAProxy 2.6.12-1+deb12u4" (asked once a process).
func proxyVersion(proxy string) (string, error) {
	versionMu.Lock()
	defer versionMu.Unlock()
	if v, ok := versions[proxy]; ok {
		return v, nil
	}
	bin, err := proxyBinary(proxy)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), proxyStartWait)
	defer cancel()
	// nginx -v writes to stderr; haproxy -v to stdout.
	out, err := exec.CommandContext(ctx, bin, "-v").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s -v: %v", bin, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	v := strings.TrimPrefix(line, "nginx version: ")
	if f := strings.Fields(v); proxy == ProxyHAProxy && len(f) >= 3 {
		v = f[0] + " " + f[2] // "HAProxy version 2.6.12-1+deb12u4 2023/…" → "HAProxy 2.6.12-1+deb12u4"
	}
	versions[proxy] = v
	return v, nil
}

// nginxConfig is nginx's configuration for leg p on 127.0.0.1:port in front
// of upstream (host:port), every file under dir: one process (no master, so
// no worker changes user), in the foreground, HTTP/1.1 to the upstream with
// keep-alive, the idle timeout as proxy_read_timeout; probePath answers
// token (see launch).
func nginxConfig(p ProxyLeg, dir string, port int, upstream, token string) string {
	buf := "off"
	if p.Buffering {
		buf = "on"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# generated by waitsim conformance (%s)
daemon off;
master_process off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log info;
events { worker_connections 256; }
http {
    access_log %[2]s/access.log;
    client_body_temp_path %[2]s/tmp/body;
    proxy_temp_path %[2]s/tmp/proxy;
    fastcgi_temp_path %[2]s/tmp/fastcgi;
    uwsgi_temp_path %[2]s/tmp/uwsgi;
    scgi_temp_path %[2]s/tmp/scgi;
    keepalive_timeout 600s;
    server {
        listen 127.0.0.1:%[3]d;
        location = %[7]s {
            return 200 "%[8]s";
        }
        location / {
            proxy_pass http://%[4]s;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_connect_timeout 5s;
            proxy_send_timeout 600s;
            proxy_read_timeout %[5]dms;
            proxy_buffering %[6]s;
        }
    }
}
`, p.Name, dir, port, upstream, p.IdleTimeoutMs, buf, probePath, token)
	return b.String()
}

// haproxyConfig is HAProxy's configuration for leg p: HTTP mode, the idle
// timeout as timeout server, the client side's timeout far beyond any case
// (so that only the server side's idle timer acts), logging to stderr;
// probePath answers token (see launch).
func haproxyConfig(p ProxyLeg, port int, upstream, token string) string {
	return fmt.Sprintf(`# generated by waitsim conformance (%s)
global
    log stderr format short local0 info
defaults
    mode http
    log global
    option httplog
    timeout connect 5s
    timeout client 600s
    timeout server %dms
frontend conformance
    bind 127.0.0.1:%d
    http-request return status 200 content-type text/plain string "%s" if { path %s }
    default_backend serve
backend serve
    server serve %s
`, p.Name, p.IdleTimeoutMs, port, token, probePath, upstream)
}

// proxy is one running proxy process.
type proxy struct {
	cmd  *exec.Cmd
	url  string // the client's URL: the proxy's address and the server's path
	log  string
	done chan struct{}
	err  error
}

// startProxy starts leg p on a free port of 127.0.0.1 in front of the
// server at serverURL, with its configuration and logs in dir, and waits
// until it accepts connections. A port taken between its choice and the
// proxy's bind is tried again with another.
func startProxy(p ProxyLeg, dir, serverURL string) (*proxy, error) {
	bin, err := proxyBinary(p.Proxy)
	if err != nil {
		return nil, err
	}
	host, path, ok := strings.Cut(strings.TrimPrefix(serverURL, "http://"), "/")
	if !ok || host == "" {
		return nil, fmt.Errorf("server URL %q: want http://host:port/path", serverURL)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o755); err != nil {
		return nil, err
	}
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		token := fmt.Sprintf("waitsim %s %d %d", p.Name, os.Getpid(), port)
		var args []string
		var conf string
		switch p.Proxy {
		case ProxyNginx:
			conf = filepath.Join(dir, "nginx.conf")
			if err := os.WriteFile(conf, []byte(nginxConfig(p, dir, port, host, token)), 0o644); err != nil {
				return nil, err
			}
			args = []string{"-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf}
		case ProxyHAProxy:
			conf = filepath.Join(dir, "haproxy.cfg")
			if err := os.WriteFile(conf, []byte(haproxyConfig(p, port, host, token)), 0o644); err != nil {
				return nil, err
			}
			args = []string{"-f", conf, "-db"}
		default:
			return nil, fmt.Errorf("unknown proxy %q", p.Proxy)
		}
		px, err := launch(bin, args, filepath.Join(dir, p.Proxy+".stderr.log"), port, token)
		if err == nil {
			px.url = fmt.Sprintf("http://127.0.0.1:%d/%s", port, path)
			return px, nil
		}
		last = err
	}
	return nil, last
}

// probePath is the path at which a proxy the runner started answers its
// token itself, never forwarding it.
const probePath = "/__waitsim_probe"

// launch starts bin and waits until it answers its token at probePath on
// port (or the process ends, or proxyStartWait passes): an answer from
// another process that took the port first is no answer. The process dies
// with the runner (diesWithRunner).
func launch(bin string, args []string, logFile string, port int, token string) (*proxy, error) {
	f, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = diesWithRunner()
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	px := &proxy{cmd: cmd, log: logFile, done: make(chan struct{})}
	go func() {
		px.err = cmd.Wait()
		f.Close()
		close(px.done)
	}()
	probe := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 500 * time.Millisecond}
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, probePath)
	deadline := time.Now().Add(proxyStartWait)
	for time.Now().Before(deadline) {
		if res, err := probe.Get(url); err == nil {
			b, _ := io.ReadAll(io.LimitReader(res.Body, 1024))
			res.Body.Close()
			if string(b) == token {
				return px, nil
			}
		}
		select {
		case <-px.done:
			b, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("%s exited before listening (%v): %s", filepath.Base(bin), px.err, lastLines(b, 3))
		case <-time.After(20 * time.Millisecond):
		}
	}
	px.stop()
	return nil, fmt.Errorf("%s: no answer on port %d after %s", filepath.Base(bin), port, proxyStartWait)
}

// diesWithRunner is the process attribute of everything the runner starts
// (servers, proxies, node): killed if the runner dies first (Linux's
// Pdeathsig), even by SIGKILL; the child stays in the runner's process
// group, so that whatever stops the run's group stops it too.
func diesWithRunner() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// stop ends the proxy: SIGTERM (nginx and HAProxy both stop at once on it,
// without waiting for open streams), SIGKILL after proxyStopWait. It
// returns an error when the proxy had already died or had to be killed.
func (px *proxy) stop() error {
	select {
	case <-px.done:
		return fmt.Errorf("the proxy had exited during the run (%v; see %s)", px.err, px.log)
	default:
	}
	_ = px.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-px.done:
		return nil
	case <-time.After(proxyStopWait):
		_ = px.cmd.Process.Kill()
		<-px.done
		return fmt.Errorf("the proxy did not stop within %s of SIGTERM: killed", proxyStopWait)
	}
}

// portsGiven are the ports freePort handed out in this process: never
// twice, so that two proxies started at once never race for one.
var portsGiven = struct {
	sync.Mutex
	m map[int]bool
}{m: map[int]bool{}}

// freePort asks the kernel for a free port of 127.0.0.1 that no other
// proxy of this process was given.
func freePort() (int, error) {
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		portsGiven.Lock()
		taken := portsGiven.m[port]
		portsGiven.m[port] = true
		portsGiven.Unlock()
		if !taken {
			return port, nil
		}
	}
	return 0, errors.New("no free port")
}

// lastLines returns the last n lines of b, joined by " | ".
func lastLines(b []byte, n int) string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			lines = append(lines, t)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return "(no output)"
	}
	return strings.Join(lines, " | ")
}

// errNoProxyLeg: --proxies names a leg that ProxyLegs does not have.
var errNoProxyLeg = errors.New("no such proxy leg")

// proxyLegsNamed returns the legs of ProxyLegs with the given names, in
// ProxyLegs' order.
func proxyLegsNamed(names []string) ([]ProxyLeg, error) {
	var out []ProxyLeg
	for _, n := range names {
		found := false
		for _, l := range ProxyLegs {
			if l.Name == n {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: %q (want some of %s)", errNoProxyLeg, n, strings.Join(ProxyLegNames(), ", "))
		}
	}
	for _, l := range ProxyLegs {
		for _, n := range names {
			if l.Name == n {
				out = append(out, l)
				break
			}
		}
	}
	return out, nil
}
