package services

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ownerFile in each temp dir names the harness pid that owns it. A run that
// was SIGKILLed cannot clean up (its servers die with it through Pdeathsig);
// the next run removes the directories whose owner is gone.
const ownerFile = "idemcheck-owner.pid"

func writeOwner(dir string) {
	_ = os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

func sweepStale() {
	for _, k := range []Kind{Postgres, Valkey, Kafka, SQS, RabbitMQ} {
		dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "idemcheck-"+string(k)+"-*"))
		for _, d := range dirs {
			b, err := os.ReadFile(filepath.Join(d, ownerFile))
			if err != nil {
				continue
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || pid <= 0 || pid == os.Getpid() {
				continue
			}
			// ESRCH: no such process; the owner is gone for good.
			if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
				_ = os.RemoveAll(d)
			}
		}
	}
}
