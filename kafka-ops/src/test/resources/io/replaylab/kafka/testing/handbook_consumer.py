#!/usr/bin/python3
"""A handbook-like payment consumer on librdkafka, configured ONLY by environment variables, with
its own message shape and tables and nothing of replay-lab inside it: the kind of program a user
brings unchanged.

Environment: KAFKA_BOOTSTRAP, KAFKA_TOPIC, KAFKA_GROUP, CLIENT_ID (optional), DB_PATH, LEDGER_NS
(optional, default "main": which ledger the rows belong to), DEDUPE ("0": apply every delivery, the
bug the lab must catch), SKIP_TO_END ("1": once its ledger has rows, every assignment jumps to the log
end and commits it, so a reset is never read again: the other bug the lab must not pass).
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

from confluent_kafka import Consumer, KafkaException


def main():
    env = os.environ
    ns = env.get("LEDGER_NS", "main")
    dedupe = env.get("DEDUPE", "1") != "0"
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))

    db = sqlite3.connect(env["DB_PATH"], timeout=10, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS payment_inbox (ns TEXT, payment_id TEXT, PRIMARY KEY (ns, payment_id))")
    db.execute("CREATE TABLE IF NOT EXISTS payment_ledger (ns TEXT, payment_id TEXT, amount_cents INTEGER, currency TEXT)")

    consumer = Consumer({
        "bootstrap.servers": env["KAFKA_BOOTSTRAP"],
        "group.id": env["KAFKA_GROUP"],
        "client.id": env.get("CLIENT_ID", "payments"),
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 1500,
        "max.poll.interval.ms": 10000,
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
    try:
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
                commit(consumer, msg)
                continue
            new = apply(db, ns, dedupe, payment_id, cents, payment.get("currency"))
            print(f"applied {msg.topic()}-{msg.partition()}@{msg.offset()} {payment_id} new={new}", flush=True)
            commit(consumer, msg)
    finally:
        consumer.close()
        db.close()


def apply(db, ns, dedupe, payment_id, cents, currency):
    for _ in range(30):
        try:
            db.execute("BEGIN IMMEDIATE")
            new = db.execute("INSERT OR IGNORE INTO payment_inbox VALUES (?, ?)", (ns, payment_id)).rowcount == 1
            if new or not dedupe:
                db.execute("INSERT INTO payment_ledger VALUES (?, ?, ?, ?)", (ns, payment_id, cents, currency))
            db.execute("COMMIT")
            return new
        except sqlite3.OperationalError as e:
            if db.in_transaction:
                db.execute("ROLLBACK")
            print("db busy, retrying:", e, flush=True)
            time.sleep(0.2)
    raise RuntimeError("the database stayed locked")


def commit(consumer, msg):
    try:
        consumer.commit(message=msg, asynchronous=False)
    except KafkaException as e:
        print("commit failed:", e, flush=True)


if __name__ == "__main__":
    main()
