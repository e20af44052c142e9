'use strict';
// The survey's payment API (survey/CONTRACT.md) on Express 4, POST /payments protected by
// express-idempotency as its README shows: app.post('*', idempotency.idempotency()) with the
// default options (Idempotency-Key header, in-memory data adapter), and the handler returning
// early when getSharedIdempotencyService().isHit(req).
const express = require('express');
const idempotency = require('express-idempotency');
const { pay, ledgerRows, parseBody, bearer } = require('../lib/node/psp');

const app = express();
app.use(express.json());
app.post('*', idempotency.idempotency());

app.get('/healthz', (req, res) => res.json({ ok: true }));

app.post('/payments', async (req, res) => {
  const idempotencyService = idempotency.getSharedIdempotencyService();
  if (idempotencyService.isHit(req)) {
    return;
  }
  if (!bearer(req.get('Authorization'))) {
    return res.status(401).json({ error: 'unauthorized' });
  }
  const body = parseBody(req.body);
  if (!body) {
    return res.status(400).json({ error: 'invalid body' });
  }
  const { status, body: answer } = await pay(req.get('Authorization'), req.get('Idempotency-Key') || '', body);
  res.status(status).json(answer);
});

app.get('/ledger', (req, res) => res.json({ data: ledgerRows(String(req.query.order_id)) }));

// Errors the middleware passes to next() (409 in progress, 417 misuse) keep the status it set;
// the body is JSON like the rest of the API.
app.use((err, req, res, next) => {
  if (res.headersSent) return next(err);
  const status = res.statusCode >= 400 ? res.statusCode : (err.status || 500);
  res.status(status).json({ error: err.message });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.on('error', (e) => { console.error(e); process.exit(1); });
