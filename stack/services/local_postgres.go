package services

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/internal/freeport"
	"github.com/idemcheck/idemcheck/internal/logtail"
)

// pgBinDir finds the newest Debian Postgres (15 or newer) bin directory.
func pgBinDir() (string, error) {
	if d := os.Getenv("IDEMCHECK_PG_BINDIR"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) < pgMajor(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if pgMajor(dirs[i]) >= 15 {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("no Postgres 15+ under /usr/lib/postgresql (run ci/install-deps, or set IDEMCHECK_PG_BINDIR)")
}

func pgMajor(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

// asPostgresUser makes root-run commands run as the postgres user: initdb and
// the server refuse to run as root.
func asPostgresUser(cmd *exec.Cmd, dir string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("running as root needs the postgres user (from Debian's postgresql): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, uid, gid)
	}); err != nil {
		return err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	return nil
}

func startLocalPostgres(ctx context.Context) (Service, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := tempDir(Postgres)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (Service, error) {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("postgres (local): %w", err)
	}
	data := filepath.Join(dir, "data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	if err := asPostgresUser(initdb, dir); err != nil {
		return fail(err)
	}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v: %s", err, out))
	}
	port, err := freeport.Get()
	if err != nil {
		return fail(err)
	}
	// fsync is off because the harness crashes tiers, never the database's
	// host; commits still go through the WAL, so a lost COMMIT reply is still
	// a committed row. wal_level=logical lets the stream job's connector and
	// the second Region read the ledger's change stream (pgoutput).
	srv := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+dir,
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=300",
		"-c", "shared_buffers=128MB", "-c", "wal_level=logical",
		"-c", "max_replication_slots=20", "-c", "max_wal_senders=20",
		"-c", "max_logical_replication_workers=8")
	if err := asPostgresUser(srv, dir); err != nil {
		return fail(err)
	}
	p, err := startLocal(Postgres, dir, srv)
	if err != nil {
		return fail(err)
	}
	p.endpoint = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	p.stopGracefully = func(ctx context.Context) error {
		// pg_ctl's fast mode: roll back open transactions and shut down cleanly.
		stop := exec.CommandContext(ctx, filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop")
		_ = asPostgresUser(stop, dir)
		return stop.Run()
	}
	err = waitFor(ctx, "postgres", 30*time.Second, p.exited, func(ctx context.Context) error {
		v, err := pgVersion(ctx, p.endpoint)
		p.version = v
		return err
	})
	if err != nil {
		_ = p.Stop(context.Background())
		return nil, fmt.Errorf("postgres (local): %w\n%s", err, logtail.Lines(p.logPath, 30))
	}
	return p, nil
}

func pgVersion(ctx context.Context, dsn string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	var v string
	err = conn.QueryRow(ctx, "SHOW server_version").Scan(&v)
	return v, err
}
