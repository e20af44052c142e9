package kafka

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

// Drop deletes the run's group and topic. A group that also holds
// offsets of other topics is not the run's alone: only its offsets of the
// run's topic are deleted then.
func Drop(adm *kadm.Client, topic, group string, stderr io.Writer) {
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
