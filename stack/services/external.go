package services

import (
	"context"
	"fmt"
	"os"
	"time"
)

// The variables that point the external provider at a user's own servers.
const (
	EnvPostgresDSN  = "IDEMCHECK_POSTGRES_DSN"
	EnvKafkaBrokers = "IDEMCHECK_KAFKA_BROKERS"
	EnvValkeyAddr   = "IDEMCHECK_VALKEY_ADDR"
	EnvSQSEndpoint  = "IDEMCHECK_SQS_ENDPOINT"
	EnvRabbitMQURL  = "IDEMCHECK_RABBITMQ_URL"
)

var externalEnv = map[Kind]string{Postgres: EnvPostgresDSN, Kafka: EnvKafkaBrokers, Valkey: EnvValkeyAddr, SQS: EnvSQSEndpoint, RabbitMQ: EnvRabbitMQURL}

// external is a server someone else runs; Stop leaves it running.
type external struct {
	kind     Kind
	endpoint string
	version  string
}

func (e *external) Kind() Kind                 { return e.kind }
func (e *external) Endpoint() string           { return e.endpoint }
func (e *external) Version() string            { return e.version }
func (e *external) PID() int                   { return 0 }
func (e *external) Stop(context.Context) error { return nil }

// externalTimeout bounds the probe of a user-given address: a wrong address
// must fail fast and clearly, never hang a CI job.
const externalTimeout = 10 * time.Second

// startExternal returns (nil, nil) when the kind's variable is unset. When it
// is set, the server must answer: falling back to another provider would
// silently test something the user did not ask for.
func startExternal(ctx context.Context, k Kind) (Service, error) {
	env := externalEnv[k]
	v := os.Getenv(env)
	if v == "" {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, externalTimeout)
	defer cancel()
	e := &external{kind: k, endpoint: v}
	var err error
	switch k {
	case Postgres:
		e.version, err = pgVersion(ctx, v)
	case Kafka:
		e.version = "external"
		err = kafkaReady(ctx, firstBroker(v))
	case Valkey:
		var info string
		info, err = valkeyCmd(ctx, v, "INFO", "server")
		e.version = infoField(info, "valkey_version")
		if e.version == "" {
			e.version = infoField(info, "redis_version")
		}
	case SQS:
		e.version = "external"
		err = sqsAnswers(ctx, v, false)
	case RabbitMQ:
		e.version, err = rabbitmqVersion(ctx, v)
	}
	if err != nil {
		return nil, fmt.Errorf("%s=%q: %s does not answer within %s: %v", env, v, k, externalTimeout, err)
	}
	return e, nil
}

func firstBroker(list string) string {
	for i := 0; i < len(list); i++ {
		if list[i] == ',' {
			return list[:i]
		}
	}
	return list
}
