package services

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/internal/logtail"
)

// kafkaHome finds the jars ci/install-deps fetched: $IDEMCHECK_KAFKA_HOME, or
// the newest complete ~/.cache/idemcheck/kafka-<version>.
func kafkaHome() (home, version string, err error) {
	return jarHome("IDEMCHECK_KAFKA_HOME", "kafka", kafkaJar)
}

var kafkaJar = regexp.MustCompile(`^kafka_2\.13-(.+)\.jar$`)

// jarHome finds a server's jars that ci/install-deps fetched: the folder
// $env names, or the newest complete ~/.cache/idemcheck/<name>-<version>;
// the version is read from the name of the jar that jar matches.
func jarHome(env, name string, jar *regexp.Regexp) (home, version string, err error) {
	if h := os.Getenv(env); h != "" {
		return h, jarVersion(h, jar), nil
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		hd, _ := os.UserHomeDir()
		cache = filepath.Join(hd, ".cache")
	}
	dirs, _ := filepath.Glob(filepath.Join(cache, "idemcheck", name+"-*"))
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], ".complete")); err == nil {
			return dirs[i], jarVersion(dirs[i], jar), nil
		}
	}
	return "", "", fmt.Errorf("no %s jars under %s/idemcheck (run ci/install-deps, or set %s)", name, cache, env)
}

func jarVersion(home string, jar *regexp.Regexp) string {
	ents, _ := os.ReadDir(filepath.Join(home, "libs"))
	for _, e := range ents {
		if m := jar.FindStringSubmatch(e.Name()); m != nil {
			return m[1]
		}
	}
	return "unknown"
}

// kafkaClusterID makes a Kafka Uuid (16 random bytes, URL-safe base64), as
// `kafka-storage.sh random-uuid` does, without starting a JVM for it.
func kafkaClusterID() string {
	// An id starting with '-' reads as a flag to kafka-storage's argument
	// parser (1 start in 64 failed so); Kafka's own Uuid.randomUuid draws again
	// in that case, and so does this.
	for {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		if id := base64.RawURLEncoding.EncodeToString(b); id[0] != '-' {
			return id
		}
	}
}

func javaBin() string {
	if jh := os.Getenv("JAVA_HOME"); jh != "" {
		return filepath.Join(jh, "bin", "java")
	}
	return "java"
}

func startLocalKafka(ctx context.Context, advertise func(string) (string, error)) (Service, string, error) {
	home, version, err := kafkaHome()
	if err != nil {
		return nil, "", fmt.Errorf("kafka (local): %w", err)
	}
	dir, err := tempDir(Kafka)
	if err != nil {
		return nil, "", err
	}
	ports := make([]int, 3)
	for i := range ports {
		if ports[i], err = freeport.Get(); err != nil {
			return nil, "", err
		}
	}
	port, cport, pport := ports[0], ports[1], ports[2]
	listeners := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", port, cport)
	advertised := fmt.Sprintf("PLAINTEXT://127.0.0.1:%d", port)
	protoMap := "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
	proxied := ""
	if advertise != nil {
		// A second listener whose advertised address is a proxy in front of
		// it: clients bootstrapping there stay behind the proxy.
		if proxied, err = advertise(fmt.Sprintf("127.0.0.1:%d", pport)); err != nil {
			return nil, "", fmt.Errorf("kafka (local): proxied listener: %w", err)
		}
		listeners += fmt.Sprintf(",PROXIED://127.0.0.1:%d", pport)
		advertised += ",PROXIED://" + proxied
		protoMap += ",PROXIED:PLAINTEXT"
	}
	props := strings.Join([]string{
		"process.roles=broker,controller",
		"node.id=1",
		fmt.Sprintf("controller.quorum.voters=1@127.0.0.1:%d", cport),
		"listeners=" + listeners,
		"advertised.listeners=" + advertised,
		"listener.security.protocol.map=" + protoMap,
		"inter.broker.listener.name=PLAINTEXT",
		"controller.listener.names=CONTROLLER",
		"log.dirs=" + filepath.Join(dir, "logs"),
		"num.partitions=1",
		"offsets.topic.replication.factor=1",
		"offsets.topic.num.partitions=1",
		"transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1",
		"transaction.state.log.num.partitions=1",
		"group.initial.rebalance.delay.ms=0",
		"auto.create.topics.enable=true",
		"log.flush.interval.messages=9223372036854775807",
	}, "\n") + "\n"
	propsPath := filepath.Join(dir, "server.properties")
	if err := os.WriteFile(propsPath, []byte(props), 0o644); err != nil {
		return nil, "", err
	}
	cp := filepath.Join(home, "libs", "*")
	jvm := []string{"-Xms256m", "-Xmx1g", "-XX:+UseSerialGC", "-Xshare:auto",
		"-Djava.awt.headless=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"}
	format := exec.CommandContext(ctx, javaBin(), append(append([]string{}, jvm...),
		"-cp", cp, "kafka.tools.StorageTool", "format", "-t", kafkaClusterID(), "-c", propsPath)...)
	if out, err := format.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", fmt.Errorf("kafka (local): format storage: %v: %s", err, out)
	}
	srv := exec.Command(javaBin(), append(append([]string{}, jvm...), "-cp", cp, "kafka.Kafka", propsPath)...)
	p, err := startLocal(Kafka, dir, srv)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", err
	}
	p.endpoint = fmt.Sprintf("127.0.0.1:%d", port)
	p.version = version
	p.stopGracefully = func(context.Context) error { return srv.Process.Signal(syscall.SIGTERM) }
	err = waitFor(ctx, "kafka", 60*time.Second, p.exited, func(ctx context.Context) error {
		return kafkaReady(ctx, p.endpoint)
	})
	if err != nil {
		_ = p.Stop(context.Background())
		return nil, "", fmt.Errorf("kafka (local): %w\n%s", err, logtail.Lines(p.logPath, 30))
	}
	return p, proxied, nil
}

// kafkaReady asks the broker for metadata: a broker that answers it has a
// controller and can create topics.
func kafkaReady(ctx context.Context, broker string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.RetryTimeout(time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	return cl.Ping(ctx)
}
