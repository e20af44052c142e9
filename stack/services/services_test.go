package services

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/freeport"
)

func closedPort(t *testing.T) int {
	t.Helper()
	p, err := freeport.Get()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A user-given address that does not answer must fail fast, name its
// variable, and never fall back to another provider.
func TestExternalUnreachableNamesVariable(t *testing.T) {
	port := closedPort(t)
	cases := []struct {
		env, value string
		opts       Options
	}{
		{EnvPostgresDSN, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), Options{Postgres: true}},
		{EnvKafkaBrokers, fmt.Sprintf("127.0.0.1:%d", port), Options{Kafka: true}},
		{EnvValkeyAddr, fmt.Sprintf("127.0.0.1:%d", port), Options{Valkey: true}},
		{EnvSQSEndpoint, fmt.Sprintf("http://127.0.0.1:%d", port), Options{SQS: true}},
		{EnvRabbitMQURL, fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", port), Options{RabbitMQ: true}},
	}
	for _, c := range cases {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			start := time.Now()
			st, err := Start(context.Background(), c.opts)
			took := time.Since(start)
			if err == nil {
				_ = st.Stop(context.Background())
				t.Fatalf("Start succeeded against a closed port")
			}
			if !strings.Contains(err.Error(), c.env) {
				t.Errorf("error does not name %s: %v", c.env, err)
			}
			if took > 30*time.Second {
				t.Errorf("took %s, want under 30s", took)
			}
		})
	}
}

// Without a Docker engine the testcontainers provider declines in one line
// within 2 s.
func TestDockerProbeDeclinesFast(t *testing.T) {
	start := time.Now()
	err := dockerAnswers(context.Background())
	took := time.Since(start)
	if err == nil {
		t.Skip("a Docker engine answers on this machine; the decline path cannot be observed")
	}
	if !errors.Is(err, errNoDocker) {
		t.Errorf("decline error is not errNoDocker: %v", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("decline is more than one line: %q", err)
	}
	if took > dockerProbeTimeout+500*time.Millisecond {
		t.Errorf("declined after %s, want within %s", took, dockerProbeTimeout)
	}
}

// A wedged engine (a socket that accepts and never answers) must not hold the
// harness past the probe's bound either.
func TestDockerProbeBoundedOnWedgedEngine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	t.Setenv("DOCKER_HOST", "tcp://"+ln.Addr().String())
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	start := time.Now()
	err = dockerAnswers(context.Background())
	if err == nil {
		t.Fatal("probe succeeded against no engine")
	}
	if took := time.Since(start); took > dockerProbeTimeout+500*time.Millisecond {
		t.Errorf("probe took %s, want within %s", took, dockerProbeTimeout)
	}
}
