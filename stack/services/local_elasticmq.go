package services

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/internal/logtail"
)

// elasticmqHome finds the jars ci/install-deps fetched: $IDEMCHECK_ELASTICMQ_HOME,
// or the newest complete ~/.cache/idemcheck/elasticmq-<version>.
func elasticmqHome() (home, version string, err error) {
	return jarHome("IDEMCHECK_ELASTICMQ_HOME", "elasticmq", elasticmqJar)
}

var elasticmqJar = regexp.MustCompile(`^elasticmq-server_2\.13-(.+)\.jar$`)

// elasticmqConf binds the SQS endpoint to loopback on one port and names
// the queue URLs after it; the statistics UI, which would open a second
// port, is off. sqs-limits strict keeps AWS's own limits (a message's
// size, a batch's length, a dedup id's characters), so a consumer that
// passes here does not rely on a leniency SQS does not have.
func elasticmqConf(port int) string {
	return fmt.Sprintf(`include classpath("application.conf")
node-address { protocol = "http", host = "127.0.0.1", port = %d, context-path = "" }
rest-sqs { enabled = true, bind-port = %d, bind-hostname = "127.0.0.1", sqs-limits = strict }
rest-stats { enabled = false }
generate-node-address = false
`, port, port)
}

func startLocalElasticMQ(ctx context.Context) (Service, error) {
	home, version, err := elasticmqHome()
	if err != nil {
		return nil, fmt.Errorf("sqs (local ElasticMQ): %w", err)
	}
	dir, err := tempDir(SQS)
	if err != nil {
		return nil, err
	}
	port, err := freeport.Get()
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "elasticmq.conf")
	if err := os.WriteFile(conf, []byte(elasticmqConf(port)), 0o644); err != nil {
		return nil, err
	}
	srv := exec.Command(javaBin(), "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-Xshare:auto",
		"-Djava.awt.headless=true", "-Dconfig.file="+conf,
		"-cp", filepath.Join(home, "libs", "*"), "org.elasticmq.server.Main")
	p, err := startLocal(SQS, dir, srv)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	p.endpoint = fmt.Sprintf("http://127.0.0.1:%d", port)
	p.version = "ElasticMQ " + version
	p.stopGracefully = func(context.Context) error { return srv.Process.Signal(syscall.SIGTERM) }
	err = waitFor(ctx, "sqs", 60*time.Second, p.exited, func(ctx context.Context) error {
		return sqsAnswers(ctx, p.endpoint, true)
	})
	if err != nil {
		_ = p.Stop(context.Background())
		return nil, fmt.Errorf("sqs (local ElasticMQ): %w\n%s", err, logtail.Lines(p.logPath, 30))
	}
	return p, nil
}

// sqsAnswers asks the endpoint to list its queues in SQS's query protocol.
// A local server must answer 200. An external one may be AWS itself, which
// refuses the unsigned question (403) but so proves that it answers; a 5xx
// or no answer is a failure either way.
func sqsAnswers(ctx context.Context, endpoint string, mustList bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/?Action=ListQueues", nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Timeout: 2 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK || (!mustList && resp.StatusCode < 500) {
		return nil
	}
	return fmt.Errorf("ListQueues answered %s", resp.Status)
}
