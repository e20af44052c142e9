// Package smoke shows, for each real server, a lost reply the server did act
// on: the one fault every idempotency guard exists for.
package smoke

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSmoke(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "smoke")
}
