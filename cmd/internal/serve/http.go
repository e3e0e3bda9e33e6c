package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where the streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

// HTTPOptions configure ListenHTTP.
type HTTPOptions struct {
	// Addr is host:port to listen on; port 0 picks a free one.
	Addr string
	// AllowRemote permits an address other than loopback; it requires
	// Token.
	AllowRemote bool
	// Token, when set, must come with every request as
	// "Authorization: Bearer TOKEN".
	Token string
}

// ListenHTTP checks the options and opens the listener: a non-loopback
// address is refused without AllowRemote, and AllowRemote without a token.
func ListenHTTP(opts HTTPOptions) (net.Listener, error) {
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("--http %q: want host:port, such as 127.0.0.1:8765: %w", opts.Addr, err)
	}
	if !loopbackHost(host) {
		if !opts.AllowRemote {
			return nil, fmt.Errorf("--http %q: %q is not a loopback address; serving memory beyond this machine needs --allow-remote and a token in TMEM_TOKEN", opts.Addr, host)
		}
		if opts.Token == "" {
			return nil, fmt.Errorf("--allow-remote needs a bearer token: set TMEM_TOKEN (a long random string) for the server and its clients")
		}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	return ln, nil
}

// loopbackHost reports whether host names this machine only.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpHandler serves srv's tools over streamable HTTP at HTTPPath. It
// refuses a request that reached a loopback address with a foreign Host
// (DNS rebinding) and cross-origin browser requests, checks the bearer
// token when one is set, and keeps at most maxSessions sessions open (a
// new one closes the least recently used).
func httpHandler(srv *mcp.Server, token string, maxSessions int) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, http.NewCrossOriginProtection().Handler(refuseForeignHost(newSessionCap(srv, maxSessions, h))))
	if token == "" {
		return mux
	}
	return requireToken(token, mux)
}

// refuseForeignHost refuses, with 403, a request that reached a loopback
// address naming a host other than this machine: a web page whose name
// was made to resolve to 127.0.0.1 (DNS rebinding). The SDK checks so
// too; this check comes first, so that such a request never makes room
// for a session it would not open.
func refuseForeignHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if ok && local != nil && hostLoopback(local.String()) && !hostLoopback(r.Host) {
			http.Error(w, fmt.Sprintf("forbidden: host %q is not this machine", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostLoopback reports whether a host or host:port names this machine:
// "localhost" or a loopback address.
func hostLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// requireToken refuses, with 401, a request without the bearer token;
// token is not empty.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if !ok || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tmem"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer returns the credentials of an Authorization header of the
// Bearer scheme, whose name is case-insensitive (RFC 7235: "bearer" and
// "BEARER" are "Bearer"), after one or more spaces.
func bearer(header string) ([]byte, bool) {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil, false
	}
	return []byte(strings.TrimLeft(cred, " ")), true
}

// httpLimits bound how long a client may hold a connection without
// getting on with it, and how long a shutdown waits.
type httpLimits struct {
	header time.Duration // to send a request's header
	body   time.Duration // to send its body once the header came
	idle   time.Duration // a kept-alive connection waits for its next request
	grace  time.Duration // a shutdown waits for the requests under way
}

// defaultHTTPLimits leave a slow link time to send the largest body the
// SDK takes (4 MiB) and a client between calls time to come back on the
// same connection.
var defaultHTTPLimits = httpLimits{header: 10 * time.Second, body: time.Minute, idle: 2 * time.Minute, grace: 10 * time.Second}

// RunHTTP serves the tools over streamable HTTP at HTTPPath on ln (see
// httpHandler; token may be empty) until ctx is cancelled. A request
// whose header or body does not come in time, and a connection left idle,
// are closed. At the end the sessions are closed, each once the calls
// under way in it are answered, which ends their clients' SSE streams;
// requests still running after 10 seconds are cut.
func (s *Service) RunHTTP(ctx context.Context, ln net.Listener, token string) error {
	return s.runHTTP(ctx, ln, token, defaultHTTPLimits)
}

func (s *Service) runHTTP(ctx context.Context, ln net.Listener, token string, lim httpLimits) error {
	srv := s.Server()
	return serveHTTP(ctx, ln, httpHandler(srv, token, maxHTTPSessions), lim, func() { closeSessions(srv) })
}

// serveHTTP serves h on ln until ctx is cancelled, then calls atShutdown
// beside the shutdown.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler, lim httpLimits, atShutdown func()) error {
	hs := &http.Server{Handler: bodyDeadline(lim.body, h), ReadHeaderTimeout: lim.header, IdleTimeout: lim.idle}
	hs.RegisterOnShutdown(atShutdown)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lim.grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return nil
}

// closeSessions closes srv's sessions. A client's standalone SSE stream
// (the GET that waits for messages from the server) ends only so: a
// shutdown that waited for it would wait out its grace whenever a client
// is connected.
func closeSessions(srv *mcp.Server) {
	for ss := range srv.Sessions() {
		ss.Close() // after the calls under way are answered
	}
}

// bodyDeadline gives a request d to send its body. The deadline is lifted
// once the body is read, so that a long answer (an SSE stream) is not cut:
// http.Server's ReadTimeout would cut it.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline at the end of the
// body.
type deadlineBody struct {
	io.ReadCloser
	rc *http.ResponseController
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && b.rc != nil {
		_ = b.rc.SetReadDeadline(time.Time{}) // a closed connection is the next read's error
		b.rc = nil
	}
	return n, err
}
