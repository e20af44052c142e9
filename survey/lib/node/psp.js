'use strict';
// The survey's payment handler (survey/CONTRACT.md), shared by the node targets' server.js: each
// only wires it behind the implementation it surveys.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const PSP_URL = process.env.PSP_URL.replace(/\/+$/, '');
const PSP_KEY = process.env.PSP_KEY;
const LEDGER = path.join(process.env.STATE_DIR, 'ledger.jsonl');

const newPaymentId = () => 'pay_' + crypto.randomBytes(8).toString('hex');

class PSPUnavailable extends Error {}

// The key the PSP sees: the caller and the client's key, so that two callers' equal keys are
// two payments at the PSP as well. '' when the client sent none.
const pspKey = (auth, key) =>
  key ? crypto.createHash('sha256').update(auth + '\n' + key).digest('hex') : '';

// One PSP request, 5 s timeout, no retry: {status: 200, body} or {status: 402}; throws
// PSPUnavailable on a 5xx, any other status, a cut or a timeout.
async function psp(method, urlPath, form, key) {
  const headers = { Authorization: 'Bearer ' + PSP_KEY };
  if (form) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  if (key) headers['Idempotency-Key'] = key;
  let resp, text;
  try {
    resp = await fetch(PSP_URL + urlPath, {
      method, headers, body: form ? form.toString() : undefined, signal: AbortSignal.timeout(5000),
    });
    text = await resp.text();
  } catch (e) {
    throw new PSPUnavailable(e.message);
  }
  if (resp.status === 402) return { status: 402 };
  if (resp.status !== 200) throw new PSPUnavailable('psp answered ' + resp.status);
  try {
    return { status: 200, body: JSON.parse(text) };
  } catch (e) {
    throw new PSPUnavailable('psp body: ' + e.message);
  }
}

// The succeeded PaymentIntent an earlier execution made under key, or null. Asking the PSP
// again under the same key cannot settle an earlier 5xx: it replays that 5xx.
async function findSucceeded(key) {
  const q = new URLSearchParams({ query: `metadata['idem_key']:'${key}' AND status:'succeeded'` });
  const { body } = await psp('GET', '/v1/payment_intents/search?' + q.toString());
  if (!body || !Array.isArray(body.data)) throw new PSPUnavailable('psp search answered no data');
  return body.data[0] || null;
}

async function charge(key, { order_id, amount, currency, payment_method }) {
  const form = new URLSearchParams({
    amount: String(amount),
    currency: currency.toLowerCase(),
    payment_method,
    confirm: 'true',
    'metadata[order_id]': order_id,
  });
  if (key) form.set('metadata[idem_key]', key);
  const r = await psp('POST', '/v1/payment_intents', form, key);
  if (r.status === 200 && (!r.body || r.body.status !== 'succeeded')) {
    throw new PSPUnavailable('psp status ' + (r.body && r.body.status));
  }
  return r;
}

// One execution of the create handler: {status, body}. Every execution that ends in a charge
// records a payment of its own: the handler trusts the middleware to run it once per key,
// which is what the survey measures.
async function pay(auth, clientKey, order) {
  const key = pspKey(auth, clientKey);
  const id = newPaymentId();
  let pi;
  try {
    pi = key ? await findSucceeded(key) : null;
    if (!pi) {
      const r = await charge(key, order);
      if (r.status === 402) return { status: 402, body: { id, order_id: order.order_id, status: 'failed' } };
      pi = r.body;
    }
  } catch (e) {
    if (!(e instanceof PSPUnavailable)) throw e;
    return { status: 502, body: { error: 'psp unavailable' } };
  }
  appendLedger({ order_id: order.order_id, payment_id: id, amount: pi.amount, psp_id: pi.id });
  return { status: 201, body: { id, order_id: order.order_id, amount: pi.amount, currency: order.currency,
    status: 'succeeded', psp_id: pi.id } };
}

// One write(2) per row on a file opened O_APPEND: survives SIGKILL and a restart.
function appendLedger(row) {
  const fd = fs.openSync(LEDGER, 'a', 0o644);
  try {
    fs.writeSync(fd, JSON.stringify(row) + '\n');
  } finally {
    fs.closeSync(fd);
  }
}

function ledgerRows(orderId) {
  let text;
  try {
    text = fs.readFileSync(LEDGER, 'utf8');
  } catch (e) {
    if (e.code === 'ENOENT') return [];
    throw e;
  }
  const rows = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    let row;
    try {
      row = JSON.parse(line);
    } catch {
      continue; // a line cut short by a kill
    }
    if (row.order_id === orderId) rows.push(row);
  }
  return rows;
}

// Validates the create body; returns the fields or null.
function parseBody(body) {
  if (!body || typeof body !== 'object') return null;
  const { order_id, amount, currency, payment_method } = body;
  if (order_id === undefined || typeof currency !== 'string' || typeof payment_method !== 'string' ||
      !Number.isInteger(amount) || amount < 1) return null;
  return { order_id: String(order_id), amount, currency, payment_method };
}

function bearer(header) {
  const m = /^Bearer\s+(\S+)/.exec(header || '');
  return m ? m[1] : null;
}

module.exports = { pay, ledgerRows, parseBody, bearer };
