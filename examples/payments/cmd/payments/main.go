// Command payments serves the example service (examples/payments) as a
// process, for the deployment examples in examples/deploy: POST /pay, and
// GET /healthz, which answers without the database.
//
// Environment: DATABASE_URL (Postgres), PSP_URL and PSP_KEY (the PSP:
// fakepsp in the examples), PORT (default 8080). The pool connects on first
// use, so the service starts and answers /healthz while its database is
// unreachable: in the examples it reaches Postgres through a Toxiproxy link
// that idemcheck creates only when its run starts. `payments -migrate`
// creates the table and exits (migrate.go).
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemcheck/idemcheck/examples/payments"
)

func main() {
	migrate := flag.Bool("migrate", false, "create the table (waiting up to -wait for the database), then exit")
	wait := flag.Duration("wait", time.Minute, "with -migrate: how long to retry reaching the database")
	// Loopback unless told otherwise: a container passes 0.0.0.0.
	host := flag.String("listen-host", "127.0.0.1", "address to listen on, with $PORT")
	buggy := flag.Bool("forget-on-timeout", false, "switch on the service's deliberate bug (payments.Service.ForgetOnTimeout)")
	flag.Parse()
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		log.Fatal("payments: DATABASE_URL must be set")
	}
	db, err := pgxpool.New(context.Background(), dsn) // no connection yet
	if err != nil {
		log.Fatalf("payments: DATABASE_URL: %v", err)
	}
	if *migrate {
		if err := migrateWithin(db, *wait); err != nil {
			log.Fatalf("payments -migrate: %v", err)
		}
		return
	}
	psp, key := os.Getenv("PSP_URL"), os.Getenv("PSP_KEY")
	if psp == "" || key == "" {
		log.Fatal("payments: PSP_URL and PSP_KEY must be set")
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	svc := &payments.Service{DB: db, PSP: strings.TrimRight(psp, "/"), PSPKey: key, ForgetOnTimeout: *buggy}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.Handle("/", svc)
	srv := &http.Server{Addr: net.JoinHostPort(*host, port), Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Printf("payments: serving POST /pay on %s", srv.Addr)
	log.Fatal(srv.ListenAndServe())
}
