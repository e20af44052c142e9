package region

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/valkey-io/valkey-go"
)

func vkDo(ctx context.Context, addr string, args ...string) (string, error) {
	c, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{addr}, DisableCache: true, DisableRetry: true})
	if err != nil {
		return "", err
	}
	defer c.Close()
	return c.Do(ctx, c.B().Arbitrary(args[0]).Args(args[1:]...).Build()).ToString()
}

// FollowValkey makes replica a replica of the primary behind link and waits
// for the first sync. The primary syncs without the diskless delay, so the
// first sync takes moments, not seconds.
func FollowValkey(ctx context.Context, primary, replica, link string) error {
	if _, err := vkDo(ctx, primary, "CONFIG", "SET", "repl-diskless-sync-delay", "0"); err != nil {
		return fmt.Errorf("region: valkey primary %s: %w", primary, err)
	}
	host, port, err := net.SplitHostPort(link)
	if err != nil {
		return err
	}
	if _, err := vkDo(ctx, replica, "REPLICAOF", host, port); err != nil {
		return fmt.Errorf("region: valkey REPLICAOF %s on %s: %w", link, replica, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := vkDo(ctx, replica, "INFO", "replication")
		if err == nil && strings.Contains(info, "master_link_status:up") && !strings.Contains(info, "master_sync_in_progress:1") {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("region: valkey replica %s did not sync from %s within 30s: %v\n%s", replica, link, err, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// PromoteValkey makes replica a primary again (REPLICAOF NO ONE).
func PromoteValkey(ctx context.Context, replica string) error {
	if _, err := vkDo(ctx, replica, "REPLICAOF", "NO", "ONE"); err != nil {
		return fmt.Errorf("region: valkey promote %s: %w", replica, err)
	}
	return nil
}
