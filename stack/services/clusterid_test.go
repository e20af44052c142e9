package services

import "testing"

// TestKafkaClusterIDNeverLooksLikeAFlag: kafka-storage's parser takes an id
// starting with '-' for a flag, so no drawn id may start with one.
func TestKafkaClusterIDNeverLooksLikeAFlag(t *testing.T) {
	for i := 0; i < 5000; i++ {
		if id := kafkaClusterID(); len(id) != 22 || id[0] == '-' {
			t.Fatalf("cluster id %q", id)
		}
	}
}
