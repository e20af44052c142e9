'use strict';
// The survey's payment API (survey/CONTRACT.md) on NestJS 10 (Express platform), POST /payments
// made idempotent as the @node-idempotency/nestjs README shows: NodeIdempotencyModule.forRootAsync
// with storage {adapter: 'redis', options: <redis client options>} and the @Idempotent() decorator
// on the handler, all other options at their defaults. Plain JavaScript: the decorators are
// applied with Reflect.decorate, as tsc emits them.
require('reflect-metadata');
const { Module, Controller, Get, Post, HttpCode, HttpException, Body, Headers, Query } =
  require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { NodeIdempotencyModule, Idempotent, StorageAdapterEnum } = require('@node-idempotency/nestjs');
const { pay, ledgerRows, parseBody, bearer } = require('../lib/node/psp');

const param = (index, decorator) => (target, key) => decorator(target, key, index);

class PaymentsController {
  healthz() {
    return { ok: true };
  }

  async create(body, authorization, key) {
    if (!bearer(authorization)) {
      throw new HttpException({ error: 'unauthorized' }, 401);
    }
    const b = parseBody(body);
    if (!b) {
      throw new HttpException({ error: 'invalid body' }, 400);
    }
    const { status, body: answer } = await pay(authorization, key || '', b);
    if (status !== 201) {
      throw new HttpException(answer, status);
    }
    return answer;
  }

  ledger(orderId) {
    return { data: ledgerRows(String(orderId)) };
  }
}
const proto = PaymentsController.prototype;
const desc = (name) => Object.getOwnPropertyDescriptor(proto, name);
Reflect.decorate([Get('healthz')], proto, 'healthz', desc('healthz'));
Reflect.decorate([
  Idempotent(),
  Post('payments'),
  HttpCode(201),
  param(0, Body()),
  param(1, Headers('authorization')),
  param(2, Headers('idempotency-key')),
], proto, 'create', desc('create'));
Reflect.decorate([Get('ledger'), param(0, Query('order_id'))], proto, 'ledger', desc('ledger'));
Reflect.decorate([Controller()], PaymentsController);

class AppModule {}
Reflect.decorate([Module({
  imports: [
    NodeIdempotencyModule.forRootAsync({
      storage: {
        adapter: StorageAdapterEnum.redis,
        options: { url: process.env.SURVEY_VALKEY_URL },
      },
    }),
  ],
  controllers: [PaymentsController],
})], AppModule);

async function main() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
