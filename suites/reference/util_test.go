package reference

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/targets/api"
	"github.com/idemcheck/idemcheck/targets/storytime"
)

func adminCall(method, url string) error {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return err
	}
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %s %s", method, url, resp.Status, b)
	}
	return nil
}

func readStats(admin string) (map[string]int64, error) { return api.ReadStats(admin) }

func storytimeOffset(admin string, d time.Duration) error { return storytime.SetOffset(admin, d) }
