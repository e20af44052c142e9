package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/examples/payments"
)

// migrateWithin creates the service's table, retrying while the database
// is not up yet (a Compose service or an init container starts beside
// Postgres, not after it), for at most wait.
func migrateWithin(db *pgxpool.Pool, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := payments.Migrate(ctx, db)
		cancel()
		if err == nil {
			log.Print("payments -migrate: table ready")
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("database not reachable within %s: %w", wait, err)
		}
		log.Printf("payments -migrate: %v; retrying", err)
		time.Sleep(time.Second)
	}
}
