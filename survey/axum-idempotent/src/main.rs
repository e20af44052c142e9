//! The survey's payment API (survey/CONTRACT.md) behind axum-idempotent 0.6.0.
//!
//! POST /payments is wrapped exactly as the crate's README sets it up: a
//! `CookieManagerLayer` outermost, a ruts `SessionLayer` on a `MokaStore`
//! (cookie "session"), and innermost the `IdempotentLayer` with
//! `use_idempotency_key_header(Some("Idempotency-Key"), true)` and
//! `expire_after(60 * 5)`. GET /healthz and GET /ledger are added after the
//! layers, so they are not wrapped (a required key would refuse them).
//! The handler only charges the PSP and records the charge.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum_idempotent::{IdempotentLayer, IdempotentOptions};
use ruts::store::moka::MokaStore;
use ruts::{CookieOptions, SessionLayer};
use serde_json::{Value, json};
use tower_cookies::CookieManagerLayer;

struct App {
    psp_url: String,
    psp_key: String,
    ledger: PathBuf,
    http: reqwest::Client,
}

fn answer(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

enum Charge {
    Succeeded { id: String, amount: i64 },
    Declined,
    Unavailable,
}

/// The key the PSP sees: the caller and the client's key, so that two callers'
/// equal keys are two payments at the PSP as well. Empty when the client sent none.
fn psp_key(auth: &str, key: &str) -> String {
    use sha2::{Digest, Sha256};
    if key.is_empty() {
        return String::new();
    }
    let sum = Sha256::digest(format!("{auth}\n{key}").as_bytes());
    sum.iter().map(|b| format!("{b:02x}")).collect()
}

/// A succeeded PaymentIntent, as the PSP describes it.
fn succeeded(pi: &Value) -> Option<Charge> {
    match (pi.get("status").and_then(Value::as_str), pi.get("id").and_then(Value::as_str)) {
        (Some("succeeded"), Some(id)) => {
            Some(Charge::Succeeded { id: id.to_string(), amount: pi.get("amount").and_then(Value::as_i64)? })
        }
        _ => None,
    }
}

impl App {
    /// One PSP request: a 5 s timeout, no retry. Ok(None) is a decline (402);
    /// Err is an unknown outcome (a 5xx, any other status, a cut, a timeout).
    async fn psp(&self, req: reqwest::RequestBuilder, key: &str) -> Result<Option<Value>, ()> {
        let mut req = req.header("Authorization", format!("Bearer {}", self.psp_key));
        if !key.is_empty() {
            req = req.header("Idempotency-Key", key);
        }
        let resp = req.send().await.map_err(|_| ())?;
        match resp.status() {
            StatusCode::PAYMENT_REQUIRED => Ok(None),
            StatusCode::OK => {
                let bytes = resp.bytes().await.map_err(|_| ())?;
                serde_json::from_slice::<Value>(&bytes).map(Some).map_err(|_| ())
            }
            _ => Err(()),
        }
    }

    /// The succeeded PaymentIntent an earlier execution made under key. Asking
    /// the PSP again under the same key cannot settle an earlier 5xx: it replays it.
    async fn find_succeeded(&self, key: &str) -> Result<Option<Charge>, ()> {
        let query = format!("metadata['idem_key']:'{key}' AND status:'succeeded'");
        let q = form_urlencoded::Serializer::new(String::new()).append_pair("query", &query).finish();
        let url = format!("{}/v1/payment_intents/search?{q}", self.psp_url);
        let found = self.psp(self.http.get(url), "").await?.ok_or(())?;
        let data = found.get("data").and_then(Value::as_array).ok_or(())?;
        Ok(data.first().and_then(succeeded))
    }

    /// POST $PSP_URL/v1/payment_intents once.
    async fn charge(&self, key: &str, order_id: &str, amount: i64, currency: &str, pm: &str) -> Charge {
        // built in a block: the serializer is not Send, so it must not live across an await
        let form = {
            let mut form = form_urlencoded::Serializer::new(String::new());
            form.append_pair("amount", &amount.to_string())
                .append_pair("currency", &currency.to_lowercase())
                .append_pair("payment_method", pm)
                .append_pair("confirm", "true")
                .append_pair("metadata[order_id]", order_id);
            if !key.is_empty() {
                form.append_pair("metadata[idem_key]", key);
            }
            form.finish()
        };
        let req = self
            .http
            .post(format!("{}/v1/payment_intents", self.psp_url))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form);
        match self.psp(req, key).await {
            Err(()) => Charge::Unavailable,
            Ok(None) => Charge::Declined,
            Ok(Some(pi)) => succeeded(&pi).unwrap_or(Charge::Unavailable),
        }
    }

    /// One execution: the earlier charge of this key if the PSP holds one, else a new charge.
    async fn pay(&self, key: &str, order_id: &str, amount: i64, currency: &str, pm: &str) -> Charge {
        if !key.is_empty() {
            match self.find_succeeded(key).await {
                Err(()) => return Charge::Unavailable,
                Ok(Some(found)) => return found,
                Ok(None) => {}
            }
        }
        self.charge(key, order_id, amount, currency, pm).await
    }

    /// One write of one line to a file opened O_APPEND.
    fn append_ledger(&self, row: &Value) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(row)?;
        line.push(b'\n');
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o644)
            .open(&self.ledger)?;
        let n = f.write(&line)?;
        if n != line.len() {
            return Err(std::io::Error::other("short write to the ledger"));
        }
        Ok(())
    }
}

async fn payments(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
    if !auth.starts_with("Bearer ") || auth["Bearer ".len()..].trim().is_empty() {
        return answer(StatusCode::UNAUTHORIZED, json!({"error": "unauthorized"}));
    }
    let parsed = serde_json::from_slice::<Value>(&body).ok().and_then(|b| {
        Some((
            b.get("order_id")?.as_str()?.to_string(),
            b.get("amount")?.as_i64().filter(|a| *a > 0)?, // a charge of nothing is a bad request
            b.get("currency")?.as_str()?.to_string(),
            b.get("payment_method")?.as_str()?.to_string(),
        ))
    });
    let Some((order_id, amount, currency, pm)) = parsed else {
        return answer(StatusCode::BAD_REQUEST, json!({"error": "invalid body"}));
    };
    let key = psp_key(auth, headers.get("idempotency-key").and_then(|v| v.to_str().ok()).unwrap_or(""));
    let pay_id = format!("pay_{:016x}", rand::random::<u64>());
    // Every execution that ends in a charge records a payment of its own: the
    // handler trusts the middleware to run it once per key, which is what the
    // survey measures.
    match app.pay(&key, &order_id, amount, &currency, &pm).await {
        Charge::Unavailable => answer(StatusCode::BAD_GATEWAY, json!({"error": "psp unavailable"})),
        Charge::Declined => answer(
            StatusCode::PAYMENT_REQUIRED,
            json!({"id": pay_id, "order_id": order_id, "status": "failed"}),
        ),
        Charge::Succeeded { id: psp_id, amount } => {
            let row = json!({"order_id": order_id, "payment_id": pay_id, "amount": amount, "psp_id": psp_id});
            if let Err(err) = app.append_ledger(&row) {
                eprintln!("ledger write failed: {err}");
                return answer(StatusCode::INTERNAL_SERVER_ERROR, json!({"error": "ledger write failed"}));
            }
            answer(
                StatusCode::CREATED,
                json!({"id": pay_id, "order_id": order_id, "amount": amount, "currency": currency,
                       "status": "succeeded", "psp_id": psp_id}),
            )
        }
    }
}

async fn ledger(State(app): State<Arc<App>>, Query(q): Query<Vec<(String, String)>>) -> Response {
    let want = q.iter().find(|(k, _)| k == "order_id").map(|(_, v)| v.as_str());
    let text = std::fs::read_to_string(&app.ledger).unwrap_or_default();
    let rows: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok()) // a line cut short by a kill
        .filter(|r| r.get("order_id").and_then(Value::as_str) == want)
        .collect();
    answer(StatusCode::OK, json!({"data": rows}))
}

async fn healthz() -> Response {
    answer(StatusCode::OK, json!({"ok": true}))
}

#[tokio::main]
async fn main() {
    let env = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is not set"));
    let port: u16 = env("PORT").parse().expect("PORT is not a port");
    let app = Arc::new(App {
        psp_url: env("PSP_URL").trim_end_matches('/').to_string(),
        psp_key: env("PSP_KEY"),
        ledger: PathBuf::from(env("STATE_DIR")).join("ledger.jsonl"),
        http: reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .retry(reqwest::retry::never())
            .pool_max_idle_per_host(0)
            .build()
            .expect("http client"),
    });

    // As axum-idempotent's README: the session store, the options, the layer order.
    let store = Arc::new(MokaStore::builder().build());
    let idempotent_options = IdempotentOptions::default()
        .use_idempotency_key_header(Some("Idempotency-Key"), true)
        .expire_after(60 * 5);

    let router = Router::new()
        .route("/payments", post(payments))
        .layer(IdempotentLayer::<MokaStore>::new(idempotent_options))
        .layer(SessionLayer::new(store).with_cookie_options(CookieOptions::build().name("session")))
        .layer(CookieManagerLayer::new())
        .route("/healthz", get(healthz))
        .route("/ledger", get(ledger))
        .with_state(app);

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    axum::serve(listener, router).await.expect("serve");
}
