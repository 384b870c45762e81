#!/usr/bin/python3
"""A handbook-like payment consumer on librdkafka, configured ONLY by environment variables, with
its own message shape and tables and nothing of replay-lab inside it: the kind of program a user
brings unchanged.

Environment: KAFKA_BOOTSTRAP, KAFKA_TOPIC, KAFKA_GROUP, CLIENT_ID (optional), KAFKA_SECURITY_PROTOCOL with
KAFKA_SASL_MECHANISM (default PLAIN), KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (optional: a SASL login), KAFKA_DEBUG
(optional: librdkafka's debug contexts, e.g. broker,security,protocol), DB_PATH, LEDGER_NS
(optional, default "main": which ledger the rows belong to), DEDUPE ("0": apply every delivery, the
bug the lab must catch), SKIP_TO_END ("1": once its ledger has rows, every assignment jumps to the log
end and commits it, so a reset is never read again: the other bug the lab must not pass), and one switch
per defect class of the lab's catalogue (README, "What catches what"):
- AUTO_COMMIT ("1"): librdkafka's defaults, enable.auto.commit and enable.auto.offset.store: the offset
  is stored when poll returns and committed by a timer (AUTO_COMMIT_INTERVAL_MS, default 5000) whatever
  the handler did: a commit can run ahead of the database.
- STORE_AFTER ("1"): a correct timer committer, as librdkafka's docs advise for at-least-once: enable.auto.commit
  with enable.auto.offset.store off, and each record's offset stored only after its transaction; the timer
  (AUTO_COMMIT_INTERVAL_MS) commits what was stored.
- COMMIT_FIRST ("1"): the offset is committed before the record's transaction: a crash between the
  two loses the effect.
- BATCH (N > 1): a correct batched consumer: up to N records per call, applied in ONE transaction
  with their inbox rows, then the batch's end committed (an ordinary design the lab must judge).
- INBOX_KEY ("position"): the inbox is keyed by partition and offset, not by the payment id: a message
  published twice (a producer's retry) is applied twice.
- BUSY_TIMEOUT (seconds, default 10) with SWALLOW_BUSY ("1"): a write still busy after the timeout is
  logged and skipped, and its offset committed: an error swallowed under contention loses the effect.
- ISOLATION ("read_uncommitted"): records of transactions their producer aborted are read and applied
  (librdkafka's default is read_committed).
- JOURNAL_MODE (default WAL): SQLite's journal mode; another (DELETE) makes every reader take a shared
  lock that a writer's COMMIT waits for.
- MAX_POLL_INTERVAL_MS (default 10000): librdkafka's max.poll.interval.ms.
- FETCH_WAIT_MS: librdkafka's fetch.wait.max.ms (default 500): how long a Fetch waits at the broker for data.
Message: key = payment id, value {"paymentId": "...", "amountCents": 1250, "currency": "EUR"}.
Per record, in ONE SQLite transaction: the payment id into payment_inbox and, only when new, the
effect into payment_ledger; THEN the offset commit.

Target query: SELECT payment_id AS message_id, amount_cents AS amount FROM payment_ledger WHERE ns = {namespace}
"""
import json
import os
import signal
import sqlite3
import sys
import time

from confluent_kafka import Consumer, KafkaException, TopicPartition


def main():
    env = os.environ
    ns = env.get("LEDGER_NS", "main")
    dedupe = env.get("DEDUPE", "1") != "0"
    auto_commit = env.get("AUTO_COMMIT") == "1"
    store_after = env.get("STORE_AFTER") == "1"
    commits = "timer" if auto_commit else "store" if store_after else "sync"
    by_position = env.get("INBOX_KEY", "id") == "position"
    swallow_busy = env.get("SWALLOW_BUSY") == "1"
    commit_first = env.get("COMMIT_FIRST") == "1"
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    db = sqlite3.connect(env["DB_PATH"], timeout=float(env.get("BUSY_TIMEOUT", "10")), isolation_level=None)
    db.execute(f"PRAGMA journal_mode={env.get('JOURNAL_MODE', 'WAL')}")
    db.execute("CREATE TABLE IF NOT EXISTS payment_inbox (ns TEXT, payment_id TEXT, PRIMARY KEY (ns, payment_id))")
    db.execute("CREATE TABLE IF NOT EXISTS payment_inbox_by_position (ns TEXT, part INTEGER, off INTEGER, PRIMARY KEY (ns, part, off))")
    db.execute("CREATE TABLE IF NOT EXISTS payment_ledger (ns TEXT, payment_id TEXT, amount_cents INTEGER, currency TEXT)")

    consumer = Consumer({
        "bootstrap.servers": env["KAFKA_BOOTSTRAP"],
        "group.id": env["KAFKA_GROUP"],
        "client.id": env.get("CLIENT_ID", "payments"),
        "enable.auto.commit": auto_commit or store_after,
        "enable.auto.offset.store": not store_after,
        "auto.commit.interval.ms": int(env.get("AUTO_COMMIT_INTERVAL_MS", "5000")),
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 1500,
        "max.poll.interval.ms": int(env.get("MAX_POLL_INTERVAL_MS", "10000")),
        **({"isolation.level": env["ISOLATION"]} if env.get("ISOLATION") else {}),
        **({"fetch.wait.max.ms": int(env["FETCH_WAIT_MS"])} if env.get("FETCH_WAIT_MS") else {}),
        **({"security.protocol": env["KAFKA_SECURITY_PROTOCOL"], "sasl.mechanism": env.get("KAFKA_SASL_MECHANISM", "PLAIN"),
            "sasl.username": env["KAFKA_SASL_USERNAME"], "sasl.password": env["KAFKA_SASL_PASSWORD"]}
           if env.get("KAFKA_SECURITY_PROTOCOL") else {}),
        **({"debug": env["KAFKA_DEBUG"]} if env.get("KAFKA_DEBUG") else {}),
    })
    skip_to_end = env.get("SKIP_TO_END") == "1"

    def assigned(c, parts):
        print("assigned", [f"{p.topic}-{p.partition}" for p in parts], flush=True)
        if skip_to_end and parts and db.execute("SELECT COUNT(*) FROM payment_ledger WHERE ns = ?", (ns,)).fetchone()[0] > 0:
            for p in parts:
                p.offset = c.get_watermark_offsets(p, timeout=10)[1]
            c.assign(parts)
            c.commit(offsets=parts, asynchronous=False)
            print("skipped to the end:", [f"{p.partition}@{p.offset}" for p in parts], flush=True)

    consumer.subscribe([env["KAFKA_TOPIC"]], on_assign=assigned,
                       on_revoke=lambda _, ps: print("revoked", [f"{p.topic}-{p.partition}" for p in ps], flush=True))
    batch = int(env.get("BATCH", "1"))
    try:
        while not stop and batch > 1:
            consume_batch(consumer, db, ns, dedupe, batch)
        while not stop:
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error():
                print("consumer error:", msg.error(), file=sys.stderr, flush=True)
                continue
            try:
                payment = json.loads(msg.value())
                payment_id, cents = payment["paymentId"], int(payment["amountCents"])
            except (ValueError, KeyError, TypeError) as e:
                print(f"skipping {msg.topic()}-{msg.partition()}@{msg.offset()}: {e}", flush=True)
                commit(consumer, msg, commits)
                continue
            if commit_first:
                commit(consumer, msg, commits)
            inbox = ("payment_inbox_by_position", (ns, msg.partition(), msg.offset())) if by_position else ("payment_inbox", (ns, payment_id))
            try:
                new = apply(db, ns, dedupe, inbox, payment_id, cents, payment.get("currency"), swallow_busy)
            except Busy as e:
                print(f"db busy, skipping {msg.topic()}-{msg.partition()}@{msg.offset()} {payment_id}: {e}", flush=True)
                commit(consumer, msg, commits)
                continue
            print(f"applied {msg.topic()}-{msg.partition()}@{msg.offset()} {payment_id} new={new}", flush=True)
            if not commit_first:
                commit(consumer, msg, commits)
    finally:
        consumer.close()
        db.close()


def consume_batch(consumer, db, ns, dedupe, n):
    msgs = [m for m in consumer.consume(num_messages=n, timeout=0.2) if not m.error()]
    if not msgs:
        return

    def apply_all():
        for msg in msgs:
            try:
                payment = json.loads(msg.value())
                payment_id, cents = payment["paymentId"], int(payment["amountCents"])
            except (ValueError, KeyError, TypeError) as e:
                print(f"skipping {msg.topic()}-{msg.partition()}@{msg.offset()}: {e}", flush=True)
                continue
            insert(db, ns, dedupe, ("payment_inbox", (ns, payment_id)), payment_id, cents, payment.get("currency"))

    transaction(db, apply_all, False)
    print(f"applied a batch of {len(msgs)} ending {msgs[-1].topic()}-{msgs[-1].partition()}@{msgs[-1].offset()}", flush=True)
    ends = {}
    for msg in msgs:
        ends[(msg.topic(), msg.partition())] = msg.offset() + 1
    try:
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in ends.items()], asynchronous=False)
    except KafkaException as e:
        print("commit failed:", e, flush=True)


class Busy(Exception):
    pass


def apply(db, ns, dedupe, inbox, payment_id, cents, currency, swallow_busy):
    return transaction(db, lambda: insert(db, ns, dedupe, inbox, payment_id, cents, currency), swallow_busy)


def insert(db, ns, dedupe, inbox, payment_id, cents, currency):
    """The inbox row and, only when it is new (or without DEDUPE), the effect: inside the caller's transaction."""
    table, key = inbox
    new = db.execute(f"INSERT OR IGNORE INTO {table} VALUES ({', '.join('?' * len(key))})", key).rowcount == 1
    if new or not dedupe:
        db.execute("INSERT INTO payment_ledger VALUES (?, ?, ?, ?)", (ns, payment_id, cents, currency))
    return new


def transaction(db, work, swallow_busy):
    """work() in one SQLite transaction, retried while the database is busy (or, with swallow_busy, given up at once)."""
    for _ in range(30):
        try:
            db.execute("BEGIN IMMEDIATE")
            result = work()
            db.execute("COMMIT")
            return result
        except sqlite3.OperationalError as e:
            if db.in_transaction:
                db.execute("ROLLBACK")
            if swallow_busy:
                raise Busy(str(e))
            print("db busy, retrying:", e, flush=True)
            time.sleep(0.2)
    raise RuntimeError("the database stayed locked")


def commit(consumer, msg, commits):
    if commits == "timer":
        return  # librdkafka stored the offset when poll returned; its timer commits it
    try:
        if commits == "store":
            consumer.store_offsets(message=msg)  # the timer commits it, and nothing the handler has not finished
            return
        consumer.commit(message=msg, asynchronous=False)
    except KafkaException as e:
        print("commit failed:", e, flush=True)


if __name__ == "__main__":
    main()
