#!/usr/bin/env node
// A serial inbox consumer on KafkaJS and better-sqlite3, written for replay-lab's tests: the Node
// shape of the handbook's consumer, and nothing of replay-lab inside it. Per record, in ONE SQLite
// transaction: the message id into the inbox (INSERT OR IGNORE) and, only when that row is new, the
// effect into the ledger; THEN commitOffsets. SQLite and KafkaJS both run on Node's main thread.
// With --no-inbox the ledger row is written for every delivery (the bug the lab must catch). With --client-defaults it keeps
// every default of KafkaJS's: its timeouts (sessionTimeout 30 s, rebalanceTimeout 60 s, heartbeatInterval 3 s) and its
// autoCommit, which commits the offset of each message whose eachMessage returned (after its transaction), not commitOffsets.
//
// Target query: SELECT message_id, amount FROM js_ledger WHERE ns = {namespace}
'use strict';
const { Kafka, logLevel } = require('kafkajs');
const Database = require('better-sqlite3');
const kit = require('./consumer_kit');

const args = kit.args(['bootstrap', 'topic', 'group', 'db', 'namespace', 'instance'], ['no-inbox', 'client-defaults']);

const db = new Database(args.db, { timeout: 10000 });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS js_inbox (ns TEXT, message_id TEXT, PRIMARY KEY (ns, message_id))');
db.exec('CREATE TABLE IF NOT EXISTS js_ledger (ns TEXT, message_id TEXT, amount INTEGER)');
const begin = db.prepare('BEGIN IMMEDIATE');
const commit = db.prepare('COMMIT');
const rollback = db.prepare('ROLLBACK');
const inbox = db.prepare('INSERT OR IGNORE INTO js_inbox VALUES (?, ?)');
const ledger = db.prepare('INSERT INTO js_ledger VALUES (?, ?, ?)');

function apply(payment) {
  begin.run();
  try {
    const isNew = inbox.run(args.namespace, payment.id).changes === 1;
    if (isNew || args.noInbox) ledger.run(args.namespace, payment.id, payment.amount);
    commit.run();
    return isNew;
  } catch (e) {
    if (db.inTransaction) rollback.run();
    throw e;
  }
}

const kafka = new Kafka({ clientId: args.instance, brokers: [args.bootstrap], logLevel: logLevel.WARN });
// KafkaJS heartbeats from the one thread that also awaits a commit: a warm-up commit held on the wire while gdb attaches (and
// stops the process), on a loaded 2-core machine, ran past a 6 s session; a member that does not rejoin still leaves after
// the rebalance timeout (10 s) once another joins
const consumer = kafka.consumer(args.clientDefaults ? { groupId: args.group }
  : { groupId: args.group, sessionTimeout: 15000, heartbeatInterval: 3000, rebalanceTimeout: 10000, maxWaitTimeInMs: 200 });

async function main() {
  await consumer.connect();
  await consumer.subscribe({ topic: args.topic, fromBeginning: true });
  consumer.on(consumer.events.GROUP_JOIN, e => console.log('assigned', JSON.stringify(e.payload.memberAssignment)));
  await consumer.run({
    autoCommit: !!args.clientDefaults,
    eachMessage: async ({ topic, partition, message }) => {
      const payment = JSON.parse(message.value.toString());
      const isNew = apply(payment);
      console.log(`applied ${topic}-${partition}@${message.offset} ${payment.id} new=${isNew}`);
      if (args.clientDefaults) return; // KafkaJS commits it
      try {
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      } catch (e) {
        console.log('commit failed:', e.type || e.message);
      }
    },
  });
}

let stopping = false;
process.on('SIGTERM', async () => {
  if (stopping) return;
  stopping = true;
  try { await consumer.disconnect(); } finally { db.close(); process.exit(0); }
});
main().catch(e => { console.error('consumer failed:', e); process.exit(1); });
