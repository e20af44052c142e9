package config

// Starter is the commented config `idemcheck run --init` writes. It parses and
// validates as is (a test keeps it so).
const Starter = `# idemcheck run config: describes one payment endpoint to test under faults.
# Every field is documented here; delete what you do not need.

target:
  # Where the service answers. With target.command set, ${PORT_0} (${PORT_1} ...)
  # is a free port idemcheck picks and passes to the command as $PORT.
  base_urls: ["http://127.0.0.1:${PORT_0}"]
  # Optional: the command that starts ONE instance. idemcheck then owns the process
  # and can kill, pause and restart it (scenarios A3, A4, restart). Its environment
  # gets PORT, PSP_URL, PSP_KEY (fakepsp) and STATE_DIR (a temp dir kept across restarts).
  command: ["./my-payment-service"]
  # More environment for the command; values expand ${PORT}, PSP_URL, PSP_KEY,
  # <NAME>_ADDR and then idemcheck's own environment.
  # env: {DATABASE_URL: "postgres://127.0.0.1:5432/pay"}
  instances: 1            # >1 starts replicas (the replicas check)
  ready: /healthz         # polled with GET until it answers
  start_timeout: 20s
  stop_grace: 5s          # a graceful stop: SIGTERM, then SIGKILL after this
  # Or, for a service idemcheck does not start (Docker, Kubernetes, systemd):
  # your own commands kill, freeze and restart instance ${INSTANCE}, one name
  # per base URL, so A3, A4, B5 and the restart checks run. Each counts only
  # when it exits 0 and its effect is seen from outside.
  # control:
  #   instances: [pay-1]
  #   kill: [docker, kill, "${INSTANCE}"]
  #   pause: [docker, pause, "${INSTANCE}"]
  #   resume: [docker, unpause, "${INSTANCE}"]
  #   restart: [docker, start, "${INSTANCE}"]
  #   timeout: 30s

# The request that creates a payment. {{amount}}, {{currency}}, {{order_id}},
# {{payment_method}} are filled by idemcheck; {{amount}} is required.
create:
  method: POST
  path: /payments
  key:
    header: Idempotency-Key     # or: body_field: idempotency_key (Square style)
    # Keys idemcheck sends: uuid (v4, default; what the IETF draft and Stripe
    # recommend) or random: prefix plus random characters, length in all.
    format: uuid
    # format: random
    # prefix: "idem_"
    # length: 32
  # Fields your clients may change between retries of one payment (a
  # timestamp, a trace id): A5 retries with only these changed.
  # volatile_fields: [client_sent_at]
  # What a payment means: A5 changes each of these alone under one key and
  # expects a mismatch. Default: every one of order_id, amount, currency and
  # payment_method the body uses; add body members your fingerprint covers.
  # meaning: [order_id, amount, currency, payment_method]
  # Intents are drawn in these currencies and with these payment methods
  # (defaults: USD EUR GBP JPY CHF; five of fakepsp's test cards).
  # currencies: [USD, EUR]
  # payment_methods: [pm_card_visa, pm_card_mastercard]
  content_type: application/json
  # headers: {X-Trace-Id: "{{order_id}}"}   # extra headers; placeholders allowed
  body: |
    {"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "payment_method": "{{payment_method}}"}

# Each caller is one authenticated client; two are needed for A6 (cross-caller).
# Authorization values are redacted in every report.
callers:
  - name: u1
    headers: {Authorization: "Bearer token-of-u1"}
  - name: u2
    headers: {Authorization: "Bearer token-of-u2"}

# Response -> outcome (succeeded, failed, processing, in_progress, mismatch, void, error).
# First matching rule wins; field/equals look at a JSON field of the body.
outcomes:
  payment_id: id
  rules:
    - {status: [200, 201], field: status, equals: succeeded, outcome: succeeded}
    - {status: [200, 201, 202], outcome: processing}
    - {status: [402], outcome: failed}
    - {status: [409], outcome: in_progress}
    - {status: [422], outcome: mismatch}
    - {status: [400, 500, 502, 503], outcome: error}

# Optional "did it happen?" request.
lookup:
  method: GET
  path: /payments/{{payment_id}}

# Optional refund of a payment (same fields as create; the key only when
# key.header or key.body_field is set). Enables the multi-step check S-multistep.
# refund:
#   method: POST
#   path: /payments/{{payment_id}}/refund
#   key: {header: Idempotency-Key}
#   body: '{"amount": {{amount}}}'

# Optional RESOLVE: "did it happen?" of a key, not of a payment, sent under the
# create's key; an absent key must become void, so its create never charges.
# Enables chaos's resolve shapes. Map its answers in outcomes.rules.
# resolve:
#   method: POST
#   path: /payments/resolve

# Optional authorize/capture flow (check S-capture, with fakepsp): authorize is a
# create that only authorizes (capture_method=manual at the PSP; default: create
# itself), capture takes the payment it named. With refund: the refund follows.
# authorize:
#   path: /payments
#   key: {header: Idempotency-Key}
#   body: '{"order_id": "{{order_id}}", "amount": {{amount}}, "currency": "{{currency}}", "capture_method": "manual"}'
# capture:
#   method: POST
#   path: /payments/{{payment_id}}/capture
#   key: {header: Idempotency-Key}

# How idemcheck sees money move: fakepsp (started by idemcheck; point your service
# at the printed URL and secret key, or read $PSP_URL / $PSP_KEY), or a counter.
effects:
  fakepsp: true
  # For a service you start yourself, fix fakepsp's address and key so the
  # service can be configured with them before idemcheck runs:
  # fakepsp_listen: 127.0.0.1:12111
  # fakepsp_allow_remote: false  # true lets fakepsp_listen be 0.0.0.0:PORT (a service in another container); prints a warning: the PSP API has no auth
  # fakepsp_secret_key: sk_test_idemcheck
  # The PSP the service is written against: stripe (default), adyen or checkout.
  # psp: stripe
  # fakepsp's search is eventually consistent, as Stripe's: a new or changed
  # PaymentIntent shows in search after up to this long (0s: at once).
  # search_lag: 2s
  # With a webhook section, fakepsp delivers as Stripe documents it may: a
  # seeded share of the events twice, and a share held until the next event
  # overtakes it. off makes delivery kinder than Stripe (the report says so).
  # webhook_duplicates: on
  # webhook_out_of_order: on
  # Or, instead of fakepsp: true, a fakepsp you run yourself ("idemcheck psp" in a
  # container or pod beside the service; no webhook checks then):
  # fakepsp_url: http://fakepsp:12111
  # http_counter: {url: "http://127.0.0.1:8080/debug/charges", field: count}
  # sql_counter: {dsn: "postgres://...", query: "SELECT count(*) FROM charges"}
  # (http_counter without field, or with a field holding a list, counts the list.)

# Optional: your service's own ledger, read per intent. Two ledger charges for
# one order are a double charge even when the PSP deduplicated them.
# ledger:
#   url: "http://127.0.0.1:${PORT_0}/ledger?order_id={{order_id}}"
#   list: data                  # path of the JSON list in the answer ("" = the answer is the list)
#   # or: dsn: "postgres://...", query: "SELECT order_id, amount FROM ledger WHERE order_id = $1"
#   order_id_field: order_id
#   amount_field: amount
#   # The merchant credits of one payment, for the webhook checks (W-*): one
#   # row per credit, a refund's with a negative amount.
#   credits:
#     url: "http://127.0.0.1:${PORT_0}/credits?psp_payment_id={{psp_payment_id}}"  # or {{order_id}}, {{payment_id}}
#     list: data
#     # or: dsn: "postgres://...", query: "SELECT amount FROM credits WHERE psp_payment_id = $3"
#     amount_field: amount

# Optional: your service's webhook handler. fakepsp registers it and delivers
# the events of the run's payments, signed as Stripe signs them; the W-*
# checks send duplicates, concurrent, reordered, early and forged copies and
# count the credits (ledger.credits) they caused.
# webhook:
#   path: /webhooks/stripe          # on each instance; or url: "http://127.0.0.1:9000/hooks"
#   events: ["*"]                   # the event types the endpoint is subscribed to
#   secret_env: PSP_WEBHOOK_SECRET  # a started command gets the signing secret here
#   # secret: whsec_...             # fix it, for a service started before idemcheck
#   tolerance: 300s                 # the signature age the handler accepts
#   dedup_window: 0s                # how long it remembers an event id, if documented
#   timeout: 3s                     # one delivery; a later answer is a lost acknowledgement

# Optional: your service's Kafka consumer of payment records. idemcheck makes
# a topic of its own per run, gives the command its brokers, topic and group,
# and the Q-* checks produce retried, redelivered and poison records to it,
# counting the credits (ledger.credits) they caused. Deleted at the end.
# consumer:
#   broker: kafka                    # kafka or sqs (conform/broker)
#   # brokers: ["127.0.0.1:9092"]    # default: idemcheck starts a local Kafka
#   topic: "idemcheck-{{run}}"       # {{run}} is the run's own name
#   group: "idemcheck-{{run}}"       # the consumer group the service joins
#   partitions: 4
#   key: "{{payment_id}}"
#   message: '{"event_id": "{{event_id}}", "payment_id": "{{payment_id}}", "amount": {{amount}}, "merchant": "{{merchant}}"}'
#   poison: '{"idemcheck": "poison", "amount": '   # a record the consumer cannot parse
#   env: {brokers: KAFKA_BROKERS, topic: KAFKA_TOPIC, group: KAFKA_GROUP}
#   create_first: false             # true: make each record's payment through create first
#   # SQS only (broker: sqs; brokers: ["http://127.0.0.1:9324"] or none for a local ElasticMQ):
#   # fifo: false                   # a FIFO queue (5-minute dedup window, group id from the key)
#   # content_dedup: false          # FIFO: the dedup id from the body when none is sent;
#   #                               # message must then carry a send time: "sent_at": {{now_ns}}
#   # dead_letter: "idemcheck-{{run}}-dlq"   # the redrive policy's dead-letter queue
#   # max_receives: 3               # deliveries before a message moves there
#   # visibility_timeout: 30s       # how long a received message stays hidden
#   # env: {brokers: SQS_ENDPOINT, topic: SQS_QUEUE_URL, dead_letter: SQS_DLQ_URL}
#   # credits: {...}                # as ledger.credits, if the consumer credits elsewhere

# Optional Toxiproxy links for the service's own dependencies; the command gets
# <NAME>_ADDR (e.g. DB_ADDR) to connect through.
# toxiproxy:
#   api: http://toxiproxy:8474   # your own toxiproxy-server (started with -proxy-metrics); default: idemcheck's embedded one
#   links:
#     - {name: DB, upstream: "127.0.0.1:5432"}
#     # - {name: DB, upstream: "postgres:5432", listen: "0.0.0.0:15432"}   # with api: the service dials toxiproxy:15432
#   bursts: on                   # chaos's latency bursts on the links (off: none)

profile: ietf            # ietf (default), stripe, custom
# protocol:              # overrides of the profile
#   mismatch_status: 422
#   replay_header: Idempotent-Replayed
#   retry_after: required    # or forbidden; unset: either
#   missing_key_status: 400
#   in_progress_status: 409
#   mismatch_code: idempotency_error
#   stores_5xx: stored       # or not_stored; unset: not checked
#   quoted_key_same: true
#   problem_json: true
#   problem_code: code       # the member every error body carries (unset: code)
#   max_key_length: 255

retry_horizon: 24h       # how long your clients retry one payment
key_window: 24h          # how long you document keeping a key
required: []             # checks that must hold: a protocol vector's deviation fails the run, a safety check's n/a fails it (e.g. [P-conflict, A3])
strict: false            # true: every protocol deviation fails the run
concurrency: 8           # copies sent at once in A2
timeout: 10s             # one HTTP attempt
settle: 300ms            # effects must stay unchanged this long before judging
converge_within: 20s     # after a fault, retry (with backoff, and the lookup) this long for a final answer
quiesce: 30s             # quiet period before the final recount of every intent's charges (late effects)
`
