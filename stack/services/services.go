// Package services brings up the real Postgres, Kafka, Valkey, SQS and RabbitMQ a run needs,
// from the first provider that can: external addresses, testcontainers, or the
// servers' own binaries on this machine.
package services

import (
	"context"
	"io"
)

// Kind names one of the servers.
type Kind string

// The servers idemcheck runs against. SQS is the queue API (standard and
// FIFO queues); the local provider runs ElasticMQ, the testcontainers one
// its image, and the external one may point at AWS itself.
const (
	Postgres Kind = "postgres"
	Kafka    Kind = "kafka"
	Valkey   Kind = "valkey"
	SQS      Kind = "sqs"
	RabbitMQ Kind = "rabbitmq"
)

// Service is one running server.
type Service interface {
	Kind() Kind
	// Endpoint is what a client dials: a postgres:// DSN, a Kafka bootstrap
	// host:port, a Valkey host:port, an SQS endpoint URL, or an amqp:// URL.
	Endpoint() string
	// Version is the server's own version string, as it reported it.
	Version() string
	// PID is the server's process id where this provider started it as a local
	// process, so faults/ can pause or kill it; 0 otherwise.
	PID() int
	Stop(ctx context.Context) error
}

// Options says which servers to start and how.
type Options struct {
	Postgres, Kafka, Valkey, SQS, RabbitMQ bool
	// KafkaAdvertise, when set, is given a second broker listener's host:port
	// and returns the address the broker must advertise on it (a Toxiproxy
	// link in front of that listener). Clients that bootstrap through
	// Stack.KafkaProxied then stay behind the proxy; Endpoint() stays direct.
	KafkaAdvertise func(listener string) (advertised string, err error)
	// Log receives one line per decision (provider chosen or declined, versions).
	Log io.Writer
}

// Stack is the set of servers one run uses.
type Stack struct {
	Provider string
	Postgres Service
	Kafka    Service
	Valkey   Service
	SQS      Service
	RabbitMQ Service
	// KafkaProxied is the advertised address of the proxied listener, empty
	// unless Options.KafkaAdvertise was set.
	KafkaProxied string
	stop         []func(context.Context) error
}
