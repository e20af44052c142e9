// Package mrec is the replicator tier that makes the claim table of two
// active Regions behave like a DynamoDB global table in its default mode,
// multi-Region eventual consistency (MREC); docs/SCENARIOS.md#G1.
// One replicator runs in each Region; each ships its Region's changes to the
// peer through a Toxiproxy link that carries the replication lag, and applies
// what the peer ships.
//
// How each MREC rule maps here:
//
//   - "Changes are replicated asynchronously": the API servers write only
//     their own Region's Postgres. A replicator reads its Region's committed
//     changes of the payments table (the durable claim, UNIQUE (caller_id,
//     client_key)) from a logical replication slot (test_decoding, in commit
//     order) and streams the items to the peer over one TCP connection; the
//     link's latency is the lag.
//   - "Conditional writes evaluate the condition expression against the
//     version of the item in the Region": the API's conditional insert (the
//     PENDING row under UNIQUE) and its compare-and-set moves run against the
//     local Postgres only, so during the lag both Regions can claim one key.
//   - "Conflicting writes are resolved per item by last writer wins": an item
//     is one payments row (key payment_id); the receiver upserts it only when
//     the incoming version is newer, by (updated_at, state), so both Regions
//     converge on the same row and the loser's change is silently dropped.
//   - "Transactions are atomic only in the Region where they run": only the
//     payments item is global. The journal, outbox, inbox and balances stay
//     Regional (each Region's relay and worker credit from its own outbox),
//     and so do the Valkey key records, like the Regional dedup windows of
//     docs/SCENARIOS.md#G1.
//
// Delivery is at least once: the slot is advanced only to what the peer
// acknowledged, and a reconnect resends everything unacknowledged; a repeat
// applies nothing, because the version it carries is not newer. An item the
// receiver applies is decoded again by its own slot and shipped back, where it
// is not newer either, so the echo stops after one hop.
package mrec
