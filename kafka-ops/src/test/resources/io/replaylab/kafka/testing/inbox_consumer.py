#!/usr/bin/python3
"""A serial inbox consumer on librdkafka (Debian's python3-confluent-kafka), written for replay-lab's
tests: the shape of the handbook's own Python consumer, and nothing of replay-lab inside it.

Per record, in ONE SQLite transaction: the message id into the inbox (INSERT OR IGNORE) and, only
when that row is new, the effect into the ledger; THEN commit(message, asynchronous=False).
With --no-inbox the ledger row is written for every delivery (the bug the lab must catch); with
--commit-first the offset is committed BEFORE the DB transaction (the other bug: a crash between the
two loses the effect); with --autocommit the two writes run with no transaction at all (never
atomic, and never at a COMMIT: a DB-commit barrier cannot reach it); --offset-reset latest starts a group with no
committed offset at the log end, as librdkafka's and the Java client's default does (what was there before is skipped);
--client-timeouts keeps librdkafka's own session and poll timeouts (45 s, 300 s) instead of short ones; --hang-at-second
hangs for good in its second record's handler, before that record's transaction (after the first one's offset commit). A transaction that meets another instance's lock waits (busy timeout 10 s)
and is retried, as a real consumer's would be.

Target query: SELECT message_id, amount FROM py_ledger WHERE ns = {namespace}
"""
import json
import sqlite3

from confluent_kafka import Consumer, KafkaException

from consumer_kit import SHORT_TIMEOUTS, arguments, polled, retried_while_busy, until_sigterm

TARGET_QUERY = "SELECT message_id, amount FROM py_ledger WHERE ns = {namespace}"


def main():
    ap = arguments("bootstrap", "topic", "group", "db", "namespace", "instance")
    ap.add_argument("--no-inbox", action="store_true")
    ap.add_argument("--commit-first", action="store_true")
    ap.add_argument("--autocommit", action="store_true")
    ap.add_argument("--offset-reset", default="earliest", choices=["earliest", "latest"])
    ap.add_argument("--client-timeouts", action="store_true")
    ap.add_argument("--hang-at-second", action="store_true")
    args = ap.parse_args()

    stop = until_sigterm()

    db = sqlite3.connect(args.db, timeout=10, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS py_inbox (ns TEXT, message_id TEXT, PRIMARY KEY (ns, message_id))")
    db.execute("CREATE TABLE IF NOT EXISTS py_ledger (ns TEXT, message_id TEXT, amount INTEGER)")

    config = {
        "bootstrap.servers": args.bootstrap,
        "group.id": args.group,
        "client.id": args.instance,
        "enable.auto.commit": False,
        "auto.offset.reset": args.offset_reset,
    }
    if not args.client_timeouts:  # else librdkafka's own: session.timeout.ms 45 s, max.poll.interval.ms 300 s
        config.update(SHORT_TIMEOUTS)
    consumer = Consumer(config)

    def assigned(_, parts):
        print("assigned", [f"{p.topic}-{p.partition}" for p in parts], flush=True)

    def revoked(_, parts):
        print("revoked", [f"{p.topic}-{p.partition}" for p in parts], flush=True)

    consumer.subscribe([args.topic], on_assign=assigned, on_revoke=revoked, on_lost=revoked)
    try:
        for msg in polled(consumer, stop, hang_at=2 if args.hang_at_second else None):
            payment = json.loads(msg.value())
            if args.commit_first:
                commit(consumer, msg)
            new = apply(db, args, payment)
            print(f"applied {msg.topic()}-{msg.partition()}@{msg.offset()} {payment['id']} new={new}", flush=True)
            if not args.commit_first:
                commit(consumer, msg)
    finally:
        consumer.close()
        db.close()


def apply(db, args, payment):
    """One transaction: the inbox row and, when it is new, the effect. Retried while another instance holds the write lock."""
    def writes():
        new = db.execute("INSERT OR IGNORE INTO py_inbox VALUES (?, ?)", (args.namespace, payment["id"])).rowcount == 1
        if new or args.no_inbox:
            db.execute("INSERT INTO py_ledger VALUES (?, ?, ?)", (args.namespace, payment["id"], payment["amount"]))
        return new

    def transaction():
        if args.autocommit:
            return writes()
        db.execute("BEGIN IMMEDIATE")
        new = writes()
        db.execute("COMMIT")
        return new
    return retried_while_busy(db, transaction)


def commit(consumer, msg):
    try:
        consumer.commit(message=msg, asynchronous=False)
    except KafkaException as e:
        print("commit failed:", e, flush=True)


if __name__ == "__main__":
    main()
