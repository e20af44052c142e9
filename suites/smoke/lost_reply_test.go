package smoke

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/valkey-io/valkey-go"
)

var _ = Describe("a lost reply the server acted on", Label("smoke"), Ordered, func() {
	var e *env
	ctx := context.Background()

	BeforeAll(func() {
		if os.Getenv(interruptChildEnv) != "" {
			Skip("interrupt child run")
		}
		e = startEnv(ctx)
	})
	AfterAll(func() {
		if e == nil {
			return
		}
		e.stop(ctx)
		expectNothingLeft(e.pids, e.addrs, e.tmpDirs)
	})

	It("Postgres: COMMIT's reply is dropped, the row exists", func() {
		dsn := e.stack.Postgres.Endpoint()
		direct, err := pgx.Connect(ctx, dsn)
		Expect(err).NotTo(HaveOccurred())
		defer direct.Close(ctx)
		_, err = direct.Exec(ctx, "CREATE TABLE smoke(id int PRIMARY KEY)")
		Expect(err).NotTo(HaveOccurred())

		proxied, err := pgx.Connect(ctx, withHost(dsn, e.pg.Addr()))
		Expect(err).NotTo(HaveOccurred())
		tx, err := proxied.Begin(ctx)
		Expect(err).NotTo(HaveOccurred())
		_, err = tx.Exec(ctx, "INSERT INTO smoke VALUES (1)")
		Expect(err).NotTo(HaveOccurred())

		undo, err := e.pg.LoseReply()
		Expect(err).NotTo(HaveOccurred())
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = tx.Commit(cctx)
		cancel()
		Expect(undo()).To(Succeed())
		Expect(e.pg.Fired()).To(BeNumerically(">", 0), "the toxic never dropped a reply")

		Expect(err).To(HaveOccurred(), "COMMIT's reply was dropped, yet the client heard it")
		var pgErr *pgconn.PgError
		Expect(errors.As(err, &pgErr)).To(BeFalse(), "a dropped reply is not a server error: %v", err)
		Expect(pgconn.SafeToRetry(err)).To(BeFalse(), "pgx calls a committed COMMIT safe to retry")

		var n int
		Expect(direct.QueryRow(ctx, "SELECT count(*) FROM smoke WHERE id = 1").Scan(&n)).To(Succeed())
		Expect(n).To(Equal(1))
	})

	It("Valkey: SET NX's reply is dropped, the key exists", func() {
		proxied, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{e.vk.Addr()},
			DisableRetry: true, DisableCache: true, DisableAutoPipelining: true})
		Expect(err).NotTo(HaveOccurred())
		defer proxied.Close()
		Expect(proxied.Do(ctx, proxied.B().Ping().Build()).Error()).To(Succeed())

		// Auto-pipelining is off: with it, valkey-go queued SET NX behind a
		// held background reply and never wrote it (seen here), which would
		// make this a lost request, not a lost reply.
		undo, err := e.vk.HoldReply()
		Expect(err).NotTo(HaveOccurred())
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		err = proxied.Do(cctx, proxied.B().Set().Key("claim:K1").Value("owner-1").Nx().Build()).Error()
		cancel()
		Expect(undo()).To(Succeed())
		Expect(e.vk.Fired()).To(BeNumerically(">", 0))
		Expect(err).To(HaveOccurred(), "SET NX's reply was dropped, yet the client heard it")
		Expect(valkey.IsValkeyNil(err)).To(BeFalse(), "a lost reply must not read as 'key taken'")

		direct, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{e.stack.Valkey.Endpoint()}, DisableCache: true})
		Expect(err).NotTo(HaveOccurred())
		defer direct.Close()
		v, err := direct.Do(ctx, direct.B().Get().Key("claim:K1").Build()).ToString()
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(Equal("owner-1"))
	})

	It("Kafka: the produce acknowledgement is dropped, the record is in the log", func() {
		const topic = "smoke"
		prod, err := kgo.NewClient(kgo.SeedBrokers(e.stack.KafkaProxied),
			kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation())
		Expect(err).NotTo(HaveOccurred())
		defer prod.Close()
		// A first record proves the path and sets up the producer id, so the
		// fault lands on the produce itself.
		Expect(prod.ProduceSync(ctx, &kgo.Record{Key: []byte("warm-up")}).FirstErr()).To(Succeed())

		undo, err := e.kafka.LoseReply()
		Expect(err).NotTo(HaveOccurred())
		acked := make(chan error, 1)
		prod.Produce(ctx, &kgo.Record{Key: []byte("pay_7:SUCCEEDED")}, func(_ *kgo.Record, err error) { acked <- err })

		cons, err := kgo.NewClient(kgo.SeedBrokers(e.stack.Kafka.Endpoint()), kgo.ConsumeTopics(topic),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		Expect(err).NotTo(HaveOccurred())
		defer cons.Close()
		keys := map[string]int{}
		poll := func() {
			fctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			cons.PollFetches(fctx).EachRecord(func(r *kgo.Record) { keys[string(r.Key)]++ })
		}
		Eventually(func() int { poll(); return keys["pay_7:SUCCEEDED"] }, 20*time.Second, 10*time.Millisecond).
			Should(Equal(1), "the record never reached the log")
		Expect(e.kafka.Fired()).To(BeNumerically(">", 0), "the toxic never dropped an acknowledgement")
		// The broker has the record; the producer has not heard so. An
		// idempotent producer cannot fail it (it may be in the log), so it
		// retries for as long as the acknowledgements are lost.
		Consistently(acked, 500*time.Millisecond).ShouldNot(Receive())

		Expect(undo()).To(Succeed())
		Eventually(acked, 30*time.Second).Should(Receive(BeNil()))
		// The retry after the fault was deduplicated by the broker: one copy.
		Consistently(func() map[string]int { poll(); return keys }, time.Second).
			Should(Equal(map[string]int{"warm-up": 1, "pay_7:SUCCEEDED": 1}))
	})
})
