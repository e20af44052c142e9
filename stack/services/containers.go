package services

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
	tcvalkey "github.com/testcontainers/testcontainers-go/modules/valkey"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Images the testcontainers provider runs; they match the local provider's
// major versions.
const (
	postgresImage = "postgres:16-alpine"
	valkeyImage   = "valkey/valkey:8"
	kafkaImage    = "apache/kafka:4.1.1"
	// elasticmqImage is ElasticMQ's native build, the same server as the
	// local provider's jars.
	elasticmqImage = "softwaremill/elasticmq-native:1.6.11"
	// rabbitmqImage matches Debian 12's package's minor version; its
	// -management tag carries the management API the queue checks read
	// their evidence from (conform/broker/rabbitmq).
	rabbitmqImage = "rabbitmq:3.10-management"
)

// dockerProbeTimeout bounds the question "does a Docker engine answer?".
const dockerProbeTimeout = 2 * time.Second

// errNoDocker is how the testcontainers provider declines.
var errNoDocker = errors.New("no Docker engine answers")

// dockerAnswers asks the engine for its health within dockerProbeTimeout. The
// probe runs in its own goroutine so a wedged socket cannot hold the harness.
func dockerAnswers(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, dockerProbeTimeout)
	defer cancel()
	res := make(chan error, 1)
	go func() {
		p, err := testcontainers.NewDockerProvider()
		if err != nil {
			res <- err
			return
		}
		defer p.Close()
		res <- p.Health(ctx)
	}()
	select {
	case err := <-res:
		if err != nil {
			return fmt.Errorf("%w: %v", errNoDocker, firstLine(err.Error()))
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w within %s", errNoDocker, dockerProbeTimeout)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// container is a server in a container this provider started.
type container struct {
	kind     Kind
	endpoint string
	version  string
	ctr      testcontainers.Container
}

func (c *container) Kind() Kind       { return c.kind }
func (c *container) Endpoint() string { return c.endpoint }
func (c *container) Version() string  { return c.version }

// PID is 0: the server runs inside the engine's VM or namespace, so faults
// use Toxiproxy (and the engine's pause) rather than signals to a host pid.
func (c *container) PID() int { return 0 }

func (c *container) Stop(ctx context.Context) error { return c.ctr.Terminate(ctx) }

func startContainerPostgres(ctx context.Context) (Service, error) {
	ctr, err := tcpostgres.Run(ctx, postgresImage,
		tcpostgres.WithDatabase("postgres"), tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword("postgres"), tcpostgres.BasicWaitStrategies(),
		testcontainers.WithCmdArgs("-c", "wal_level=logical", "-c", "max_replication_slots=20",
			"-c", "max_wal_senders=20"))
	if err != nil {
		return nil, fmt.Errorf("postgres (testcontainers): %w", err)
	}
	dsn, err := ctr.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	v, err := pgVersion(ctx, dsn)
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	return &container{kind: Postgres, endpoint: dsn, version: v, ctr: ctr}, nil
}

func startContainerValkey(ctx context.Context) (Service, error) {
	ctr, err := tcvalkey.Run(ctx, valkeyImage,
		testcontainers.WithCmdArgs("--maxmemory-policy", "noeviction"))
	if err != nil {
		return nil, fmt.Errorf("valkey (testcontainers): %w", err)
	}
	host, err := ctr.Host(ctx)
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	port, err := ctr.MappedPort(ctx, "6379/tcp")
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	addr := net.JoinHostPort(host, port.Port())
	info, err := valkeyCmd(ctx, addr, "INFO", "server")
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	return &container{kind: Valkey, endpoint: addr, version: infoField(info, "valkey_version"), ctr: ctr}, nil
}

// kafkaStarter waits for a script the post-start hook copies in: the broker
// must advertise the host's mapped port, which is known only once the
// container runs.
const kafkaStarter = "/tmp/idemcheck-start.sh"

func startContainerKafka(ctx context.Context) (Service, error) {
	hook := func(ctx context.Context, c testcontainers.Container) error {
		host, err := c.Host(ctx)
		if err != nil {
			return err
		}
		port, err := c.MappedPort(ctx, "19092/tcp")
		if err != nil {
			return err
		}
		script := fmt.Sprintf("#!/bin/bash\nexport KAFKA_ADVERTISED_LISTENERS='PLAINTEXT://%s,BROKER://localhost:9092'\nexec /etc/kafka/docker/run\n",
			net.JoinHostPort(host, port.Port()))
		return c.CopyToContainer(ctx, []byte(script), kafkaStarter, 0o755)
	}
	ctr, err := testcontainers.Run(ctx, kafkaImage,
		testcontainers.WithExposedPorts("19092/tcp"),
		testcontainers.WithEnv(map[string]string{
			"KAFKA_NODE_ID":                                  "1",
			"KAFKA_PROCESS_ROLES":                            "broker,controller",
			"KAFKA_LISTENERS":                                "PLAINTEXT://0.0.0.0:19092,BROKER://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093",
			"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP":           "PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
			"KAFKA_INTER_BROKER_LISTENER_NAME":               "BROKER",
			"KAFKA_CONTROLLER_LISTENER_NAMES":                "CONTROLLER",
			"KAFKA_CONTROLLER_QUORUM_VOTERS":                 "1@localhost:9093",
			"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR":         "1",
			"KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
			"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR":            "1",
			"KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS":         "0",
		}),
		testcontainers.WithEntrypoint("sh"),
		testcontainers.WithCmd("-c", "while [ ! -f "+kafkaStarter+" ]; do sleep 0.1; done; exec "+kafkaStarter),
		testcontainers.WithLifecycleHooks(testcontainers.ContainerLifecycleHooks{
			PostStarts: []testcontainers.ContainerHook{hook},
		}),
		testcontainers.WithWaitStrategy(wait.ForLog("Kafka Server started").WithStartupTimeout(90*time.Second)),
	)
	if err != nil {
		return nil, fmt.Errorf("kafka (testcontainers): %w", err)
	}
	host, _ := ctr.Host(ctx)
	port, err := ctr.MappedPort(ctx, "19092/tcp")
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	return &container{kind: Kafka, endpoint: net.JoinHostPort(host, port.Port()),
		version: strings.TrimPrefix(kafkaImage, "apache/kafka:"), ctr: ctr}, nil
}

func startContainerElasticMQ(ctx context.Context) (Service, error) {
	ctr, err := testcontainers.Run(ctx, elasticmqImage,
		testcontainers.WithExposedPorts("9324/tcp"),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/?Action=ListQueues").WithPort("9324/tcp").WithStartupTimeout(60*time.Second)),
	)
	if err != nil {
		return nil, fmt.Errorf("sqs (testcontainers): %w", err)
	}
	host, _ := ctr.Host(ctx)
	port, err := ctr.MappedPort(ctx, "9324/tcp")
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	return &container{kind: SQS, endpoint: "http://" + net.JoinHostPort(host, port.Port()),
		version: "ElasticMQ " + strings.TrimPrefix(elasticmqImage, "softwaremill/elasticmq-native:"), ctr: ctr}, nil
}

func startContainerRabbitMQ(ctx context.Context) (Service, error) {
	ctr, err := testcontainers.Run(ctx, rabbitmqImage,
		testcontainers.WithExposedPorts("5672/tcp", "15672/tcp"),
		testcontainers.WithWaitStrategy(wait.ForLog("Server startup complete").WithStartupTimeout(90*time.Second)),
	)
	if err != nil {
		return nil, fmt.Errorf("rabbitmq (testcontainers): %w", err)
	}
	host, _ := ctr.Host(ctx)
	port, err := ctr.MappedPort(ctx, "5672/tcp")
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	mport, err := ctr.MappedPort(ctx, "15672/tcp")
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	url := "amqp://guest:guest@" + net.JoinHostPort(host, port.Port()) + "/"
	v, err := rabbitmqVersion(ctx, url)
	if err != nil {
		_ = ctr.Terminate(context.Background())
		return nil, err
	}
	return &rabbitContainer{container: &container{kind: RabbitMQ, endpoint: url, version: v, ctr: ctr},
		mgmt: "http://guest:guest@" + net.JoinHostPort(host, mport.Port())}, nil
}

// rabbitContainer is a RabbitMQ container with its management API.
type rabbitContainer struct {
	*container
	mgmt string
}

// Management is the container's management API, as the local node's.
func (r *rabbitContainer) Management() string { return r.mgmt }
