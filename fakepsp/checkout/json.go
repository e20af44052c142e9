package checkout

import "encoding/json"

// jsonUnmarshal reads an optional body: an empty one is no fields.
func jsonUnmarshal(body []byte, v any) error {
	if len(body) == 0 {
		return nil
	}
	return json.Unmarshal(body, v)
}
