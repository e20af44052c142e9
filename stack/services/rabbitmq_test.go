package services

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// The local provider's RabbitMQ is a real broker with the delivery a
// consumer check relies on, as the official client sees it: a message
// published with confirms, taken and not acknowledged, comes back marked
// redelivered; acknowledged, it is gone. Stopping leaves no process (the
// node and its own port mapper) and no dir.
func TestLocalRabbitMQRedeliversUnacked(t *testing.T) {
	if os.Getenv(EnvRabbitMQURL) != "" {
		t.Skip(EnvRabbitMQURL + " is set: this test is about the local provider")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	svc, err := startLocalRabbitMQ(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := svc.(*rabbit)
	node, mapper := r.PID(), r.epmd.Process.Pid
	defer func() {
		if err := svc.Stop(context.Background()); err != nil {
			t.Error(err)
		}
		for _, pid := range []int{node, mapper} {
			if syscall.Kill(pid, 0) == nil {
				t.Errorf("pid %d still runs after Stop", pid)
			}
		}
		if _, err := os.Stat(r.Dir()); !os.IsNotExist(err) {
			t.Errorf("Stop left %s: %v", r.Dir(), err)
		}
	}()
	if !strings.HasPrefix(svc.Endpoint(), "amqp://guest:guest@127.0.0.1:") || !strings.HasPrefix(svc.Version(), "3.") {
		t.Fatalf("endpoint %q version %q", svc.Endpoint(), svc.Version())
	}
	conn, err := amqp.Dial(svc.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Confirm(false); err != nil {
		t.Fatal(err)
	}
	q, err := ch.QueueDeclare("payments", true, false, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := ch.PublishWithDeferredConfirmWithContext(ctx, "", q.Name, false, false,
		amqp.Publishing{MessageId: "evt_1", Body: []byte("credit pay_1"), DeliveryMode: amqp.Persistent})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := conf.WaitContext(ctx); !ok || err != nil {
		t.Fatalf("publish not confirmed: %v %v", ok, err)
	}
	get := func() amqp.Delivery {
		t.Helper()
		d, ok, err := ch.Get(q.Name, false)
		if err != nil || !ok {
			t.Fatalf("get: ok %v, %v", ok, err)
		}
		return d
	}
	first := get()
	if first.MessageId != "evt_1" || first.Redelivered {
		t.Fatalf("first delivery: id %q redelivered %v", first.MessageId, first.Redelivered)
	}
	if err := first.Nack(false, true); err != nil {
		t.Fatal(err)
	}
	again := get()
	if again.MessageId != "evt_1" || !again.Redelivered {
		t.Fatalf("after the nack: id %q redelivered %v, want evt_1 redelivered", again.MessageId, again.Redelivered)
	}
	if err := again.Ack(false); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ch.Get(q.Name, false); ok || err != nil {
		t.Fatalf("after the ack the queue still gives a message (ok %v, %v)", ok, err)
	}
}
