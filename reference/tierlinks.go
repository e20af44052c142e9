package reference

import (
	"fmt"
	"net/url"

	"github.com/idemcheck/idemcheck/conform/scenario"
	"github.com/idemcheck/idemcheck/faults"
	"github.com/idemcheck/idemcheck/stack/services"
)

// tierLinks are the links in front of the servers the tiers use, in a
// chaos run: chaos's latency bursts take turns on them (beside the PSP's),
// so a read and a later write or delete inside a tier (the outbox relay's
// read-then-delete, the worker's check-then-credit, the API's lookup then
// insert) are tens to hundreds of milliseconds apart, as on a busy
// network, instead of microseconds on loopback.
type tierLinks struct {
	// pgDSN and valkey are where the tiers dial Postgres and Valkey.
	pgDSN, valkey string
	// kafka fronts the broker's second listener (Options.KafkaAdvertise),
	// nil when the servers were given (bench) or have no Kafka.
	kafka *faults.Link
	links []scenario.DepLink
}

// kafkaAdvertise returns the services option that puts the broker's
// second listener behind a link of tl's; call it before the servers start.
func (tl *tierLinks) kafkaAdvertise(tp *faults.Toxiproxy) func(string) (string, error) {
	return func(listener string) (string, error) {
		l, err := tp.Link("tier-kafka", listener)
		if err != nil {
			return "", err
		}
		tl.kafka = l
		return l.Addr(), nil
	}
}

// open puts a link in front of svc's Postgres and Valkey and lists every
// tier link.
func (tl *tierLinks) open(tp *faults.Toxiproxy, svc *services.Stack) error {
	u, err := url.Parse(svc.Postgres.Endpoint())
	if err != nil {
		return fmt.Errorf("postgres DSN: %w", err)
	}
	pg, err := tp.Link("tier-postgres", u.Host)
	if err != nil {
		return err
	}
	u.Host = pg.Addr()
	vk, err := tp.Link("tier-valkey", svc.Valkey.Endpoint())
	if err != nil {
		return err
	}
	tl.pgDSN, tl.valkey = u.String(), vk.Addr()
	tl.links = []scenario.DepLink{{Name: "tier-postgres", Link: pg}, {Name: "tier-valkey", Link: vk}}
	if tl.kafka != nil {
		tl.links = append(tl.links, scenario.DepLink{Name: "tier-kafka", Link: tl.kafka})
	}
	return nil
}
