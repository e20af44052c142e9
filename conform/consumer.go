package conform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/conform/broker"
	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
)

// startQueue readies the service's consumer before the service starts:
// the run's own queue on the config's broker (conform/broker), and the
// variables that name it to the command. The undo it returns stops the
// consumers it started, then deletes the run's queue and group and stops
// what the broker started: after the service's processes are stopped, so
// the group is empty.
func startQueue(ctx context.Context, cfg *config.Config, o Options, e *scenario.Env, env map[string]string) (func(), int) {
	c, seed, stderr := cfg.Consumer, o.Seed, o.Stderr
	var undo []func()
	stop := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	fail := func(format string, args ...any) (func(), int) {
		fmt.Fprintf(stderr, "%s:%d: consumer: %s\n", cfg.File, cfg.Line("consumer"), fmt.Sprintf(format, args...))
		return stop, ExitUsage
	}
	if len(cfg.Target.Command) == 0 && o.StartConsumers == nil {
		return fail("needs target.command: idemcheck creates the run's topic and gives its name to the command it starts")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	// The seed names the run for a human; the random part keeps two runs
	// with one seed on shared brokers apart; the start time lets a later
	// run sweep what a killed one left (conform/broker/kafka/sweep.go).
	run := fmt.Sprintf("q-%d-%s-t%d", seed, hex.EncodeToString(b), time.Now().Unix())
	br, err := broker.Open(ctx, c.Broker, broker.Setup{Addrs: c.Brokers, Run: run, QueueName: c.Topic, GroupName: c.Group, Lanes: c.Partitions, Kind: c.Kind(), Log: stderr})
	if err != nil {
		return fail("%v", err)
	}
	undo = append(undo, br.Close)
	w := br.Where()
	for _, v := range [][2]string{{c.Env.Brokers, strings.Join(w.Addrs, ",")}, {c.Env.Topic, w.Queue}, {c.Env.Group, w.Group}, {c.Env.DeadLetter, w.DeadLetter}} {
		if v[0] != "" { // a variable the broker has no use for is not set
			env[v[0]] = v[1]
		}
	}
	e.Queue = &scenario.Queue{Cfg: c, Topic: w.Queue, Group: w.Group, Broker: br, Caps: br.Caps()}
	if o.StartConsumers != nil {
		cs, err := o.StartConsumers(ctx, w)
		if cs != nil && cs.Stop != nil {
			// Stopped before the group is deleted: a group with members stays.
			undo = append(undo, cs.Stop)
		}
		if err != nil {
			return fail("start the consumers of %s: %v", w.Queue, err)
		}
		e.Queue.Procs, e.Queue.Ready, e.Queue.Points = cs.Procs, cs.Ready, cs.Points
	}
	fmt.Fprintf(stderr, "idemcheck run: %s (a started command gets %s)\n", br.Describe(), envList(c.Env))
	return stop, 0
}

// envList names the variables a started command gets, those the broker
// uses ("$KAFKA_BROKERS, $KAFKA_TOPIC, $KAFKA_GROUP").
func envList(e config.ConsumerEnv) string {
	var out []string
	for _, n := range []string{e.Brokers, e.Topic, e.Group, e.DeadLetter} {
		if n != "" {
			out = append(out, "$"+n)
		}
	}
	return strings.Join(out, ", ")
}
