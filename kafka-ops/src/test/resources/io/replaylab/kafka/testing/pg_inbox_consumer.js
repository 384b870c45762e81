#!/usr/bin/env node
// A serial inbox consumer on KafkaJS and node-postgres (pg), written for replay-lab's tests apart from the lab: it finds its
// database as node-postgres does, in PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGOPTIONS and PGAPPNAME, and knows
// nothing of replay-lab. Per record, in ONE PostgreSQL transaction: the message id into pg_inbox (ON CONFLICT DO NOTHING)
// and, only when that row is new, the effect into pg_ledger; THEN commitOffsets. A transaction that fails is rolled back
// and run again on a new client. With --no-inbox the ledger row is written for every delivery.
//
// Target query: SELECT message_id, amount FROM pg_ledger WHERE ns = {namespace}
'use strict';
const { Kafka, logLevel } = require('kafkajs');
const { Client } = require('pg');
const kit = require('./consumer_kit');

const args = kit.args(['bootstrap', 'topic', 'group', 'namespace', 'instance'], ['no-inbox']);

let db = null;
async function client() {
  if (db === null) {
    db = new Client(); // the environment says where
    db.on('error', (e) => { console.log('connection lost:', e.message); db = null; });
    await db.connect();
  }
  return db;
}

async function transaction(work) {
  for (let attempt = 0; attempt < 60; attempt++) {
    let c = null;
    try {
      c = await client();
      await c.query('BEGIN');
      const result = await work(c);
      await c.query('COMMIT');
      return result;
    } catch (e) {
      console.log(`transaction failed (${e.code}): ${e.message}`);
      try { if (c !== null) await c.end(); } catch (ignored) { /* gone */ }
      db = null;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error('the database kept refusing the transaction');
}

async function main() {
  await transaction(async (c) => {
    await c.query('CREATE TABLE IF NOT EXISTS pg_inbox (ns TEXT, message_id TEXT, PRIMARY KEY (ns, message_id))');
    await c.query('CREATE TABLE IF NOT EXISTS pg_ledger (ns TEXT, message_id TEXT, amount BIGINT)');
  });
  const kafka = new Kafka({ clientId: args.instance, brokers: [args.bootstrap], logLevel: logLevel.ERROR });
  const consumer = kafka.consumer({ groupId: args.group, sessionTimeout: 6000, heartbeatInterval: 1500, rebalanceTimeout: 10000 });
  let stopping = false;
  process.on('SIGTERM', async () => {
    stopping = true;
    try { await consumer.disconnect(); } finally { process.exit(0); }
  });
  await consumer.connect();
  await consumer.subscribe({ topic: args.topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      if (stopping) return;
      const payment = JSON.parse(message.value.toString());
      const isNew = await transaction(async (c) => {
        const r = await c.query('INSERT INTO pg_inbox VALUES ($1, $2) ON CONFLICT DO NOTHING', [args.namespace, payment.id]);
        const fresh = r.rowCount === 1;
        if (fresh || args.noInbox) {
          await c.query('INSERT INTO pg_ledger VALUES ($1, $2, $3)', [args.namespace, payment.id, payment.amount]);
        }
        return fresh;
      });
      console.log(`applied ${topic}-${partition}@${message.offset} ${payment.id} new=${isNew}`);
      try {
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      } catch (e) {
        console.log('commit failed:', e.message);
      }
    },
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
