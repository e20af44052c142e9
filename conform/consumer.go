package conform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/idemcheck/idemcheck/conform/config"
	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/stack/services"
)

// startQueue readies the service's consumer before the service starts: a
// Kafka (the config's brokers, else one started for the run), the run's
// own topic, and the variables that name them to the command. The undo it
// returns deletes the group and the topic and stops what it started; it
// runs after the service's processes are stopped, so the group is empty.
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
	brokers := c.Brokers
	if len(brokers) == 0 {
		st, err := services.Start(ctx, services.Options{Kafka: true, Log: stderr})
		if err != nil {
			return fail("start a Kafka for the run (or set consumer.brokers): %v", err)
		}
		undo = append(undo, func() { _ = st.Stop(context.Background()) })
		brokers = strings.Split(st.Kafka.Endpoint(), ",")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	// The seed names the run for a human; the random part keeps two runs
	// with one seed on shared brokers apart; the start time lets a later
	// run sweep what a killed one left (queue_sweep.go).
	run := fmt.Sprintf("q-%d-%s-t%d", seed, hex.EncodeToString(b), time.Now().Unix())
	topic, group := strings.ReplaceAll(c.Topic, "{{run}}", run), strings.ReplaceAll(c.Group, "{{run}}", run)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0), kgo.RetryTimeout(10*time.Second))
	if err != nil {
		return fail("%v", err)
	}
	undo = append(undo, cl.Close)
	adm := kadm.NewClient(cl)
	if len(c.Brokers) > 0 {
		sweepStaleQueues(ctx, adm, c, time.Now(), stderr)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// -1: the cluster's default replication factor.
	if _, err := adm.CreateTopic(cctx, int32(c.Partitions), -1, nil, topic); err != nil {
		return fail("create topic %s on %s: %v", topic, strings.Join(brokers, ","), err)
	}
	undo = append(undo, func() { dropQueue(adm, topic, group, stderr) })
	env[c.Env.Brokers], env[c.Env.Topic], env[c.Env.Group] = strings.Join(brokers, ","), topic, group
	e.Queue = &scenario.Queue{Cfg: c, Topic: topic, Group: group, Brokers: brokers, Client: cl, Adm: adm}
	if o.StartConsumers != nil {
		cs, err := o.StartConsumers(ctx, brokers, topic, group)
		if cs != nil && cs.Stop != nil {
			// Stopped before the group is deleted: a group with members stays.
			undo = append(undo, cs.Stop)
		}
		if err != nil {
			return fail("start the consumers of %s: %v", topic, err)
		}
		e.Queue.Procs, e.Queue.Ready, e.Queue.Points = cs.Procs, cs.Ready, cs.Points
	}
	fmt.Fprintf(stderr, "idemcheck run: Kafka %s, topic %s (%d partitions), group %s (a started command gets $%s, $%s, $%s)\n",
		strings.Join(brokers, ","), topic, c.Partitions, group, c.Env.Brokers, c.Env.Topic, c.Env.Group)
	return stop, 0
}

// dropQueue deletes the run's group and topic. A group that also holds
// offsets of other topics is not the run's alone: only its offsets of the
// run's topic are deleted then.
func dropQueue(adm *kadm.Client, topic, group string, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	offs, err := adm.FetchOffsets(ctx, group)
	others := false
	for t := range offs {
		others = others || t != topic
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "idemcheck run: read group %s before deleting it: %v\n", group, err)
	case others:
		set := kadm.TopicsSet{topic: {}}
		for p := range offs[topic] {
			set[topic][p] = struct{}{}
		}
		_, err = adm.DeleteOffsets(ctx, group, set)
	default:
		err = deleteGroup(ctx, adm, group)
	}
	if err != nil && !strings.Contains(err.Error(), "GROUP_ID_NOT_FOUND") {
		fmt.Fprintf(stderr, "idemcheck run: delete group %s: %v\n", group, err)
	}
	rs, err := adm.DeleteTopics(ctx, topic)
	if err == nil {
		err = rs.Error()
	}
	if err == nil {
		err = topicGone(ctx, adm, topic)
	}
	if err != nil {
		fmt.Fprintf(stderr, "idemcheck run: delete topic %s: %v\n", topic, err)
	}
}

// topicGone waits until the brokers no longer list topic. Kafka deletes a
// topic asynchronously: the controller accepts the deletion and a broker
// answers metadata from its own copy, which can list the topic a moment
// longer (seen on a loaded machine), so a run that exits right after its
// DeleteTopics could leave its topic listed behind it.
func topicGone(ctx context.Context, adm *kadm.Client, topic string) error {
	for {
		ts, err := adm.ListTopics(ctx)
		if err == nil && !ts.Has(topic) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("still listed after its deletion: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// deleteGroup deletes the group once its members are gone. A static member
// (group.instance.id) does not leave when its process stops, so the broker
// would keep it for a session timeout: idemcheck removes those members by
// their instance ids first. A dynamic member of a process already stopped
// is waited out, bounded by ctx.
func deleteGroup(ctx context.Context, adm *kadm.Client, group string) error {
	for {
		var rs kadm.DeleteGroupResponses
		rs, err := adm.DeleteGroups(ctx, group)
		if err == nil {
			err = rs.Error()
		}
		if err == nil || !strings.Contains(err.Error(), "NON_EMPTY_GROUP") {
			return err
		}
		if ds, derr := adm.DescribeGroups(ctx, group); derr == nil {
			var ids []string
			for _, m := range ds[group].Members {
				if m.InstanceID != nil {
					ids = append(ids, *m.InstanceID)
				}
			}
			if len(ids) > 0 {
				_, _ = adm.LeaveGroup(ctx, kadm.LeaveGroup(group).InstanceIDs(ids...).Reason("idemcheck run ended"))
			}
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}
