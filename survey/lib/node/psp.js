'use strict';
// The survey's PSP call and ledger (survey/CONTRACT.md), used by the node targets' server.js.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const PSP_URL = process.env.PSP_URL.replace(/\/+$/, '');
const PSP_KEY = process.env.PSP_KEY;
const LEDGER = path.join(process.env.STATE_DIR, 'ledger.jsonl');

const newPaymentId = () => 'pay_' + crypto.randomBytes(8).toString('hex');

// POST /v1/payment_intents once (no retry, 5 s timeout).
// Returns {status: 200, pi} or {status: 402}; throws on a 5xx, anything else, a cut or a timeout.
async function charge(key, { order_id, amount, currency, payment_method }) {
  const form = new URLSearchParams({
    amount: String(amount),
    currency: currency.toLowerCase(),
    payment_method,
    confirm: 'true',
    'metadata[order_id]': order_id,
  });
  const resp = await fetch(PSP_URL + '/v1/payment_intents', {
    method: 'POST',
    headers: {
      Authorization: 'Bearer ' + PSP_KEY,
      'Idempotency-Key': key,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: form.toString(),
    signal: AbortSignal.timeout(5000),
  });
  const text = await resp.text();
  if (resp.status === 402) return { status: 402 };
  if (resp.status !== 200) throw new Error('psp answered ' + resp.status);
  const pi = JSON.parse(text);
  if (!pi || pi.status !== 'succeeded') throw new Error('psp status ' + (pi && pi.status));
  return { status: 200, pi };
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
  if (order_id === undefined || amount === undefined || typeof currency !== 'string' ||
      typeof payment_method !== 'string' || !Number.isInteger(Number(amount))) return null;
  return { order_id: String(order_id), amount: Number(amount), currency, payment_method };
}

function bearer(header) {
  const m = /^Bearer\s+(\S+)/.exec(header || '');
  return m ? m[1] : null;
}

module.exports = { charge, appendLedger, ledgerRows, parseBody, bearer, newPaymentId };
