#!/usr/bin/python3
"""A librdkafka consumer (Debian's python3-confluent-kafka) that keeps its positions in its own database, as Kafka's
"storing offsets outside Kafka" describes, written for replay-lab's tests and knowing nothing of replay-lab. It never
commits an offset to Kafka. Per record, in ONE SQLite transaction: the message id into the inbox (INSERT OR IGNORE), the
effect into the ledger when that row is new, and the partition's next offset into db_offsets; on an assignment it starts
each partition where db_offsets says (or at the beginning). A transaction that meets another instance's lock is retried.

Target query: SELECT message_id, amount FROM dbo_ledger WHERE ns = {namespace}
"""
import json

from confluent_kafka import OFFSET_BEGINNING, Consumer

from consumer_kit import SHORT_TIMEOUTS, arguments, inbox_db, polled, retried_while_busy, until_sigterm


def main():
    args = arguments("bootstrap", "topic", "group", "db", "namespace", "instance").parse_args()

    stop = until_sigterm()

    db = inbox_db(args.db, "dbo")
    db.execute("CREATE TABLE IF NOT EXISTS db_offsets (grp TEXT, topic TEXT, part INTEGER, next INTEGER, PRIMARY KEY (grp, topic, part))")

    consumer = Consumer({
        "bootstrap.servers": args.bootstrap,
        "group.id": args.group,
        "client.id": args.instance,
        "enable.auto.commit": False,
        **SHORT_TIMEOUTS,
    })

    def assigned(c, parts):
        for p in parts:
            row = db.execute("SELECT next FROM db_offsets WHERE grp = ? AND topic = ? AND part = ?", (args.group, p.topic, p.partition)).fetchone()
            p.offset = row[0] if row else OFFSET_BEGINNING
        print("assigned", [f"{p.topic}-{p.partition}@{p.offset}" for p in parts], flush=True)
        c.assign(parts)

    consumer.subscribe([args.topic], on_assign=assigned)
    try:
        for msg in polled(consumer, stop):
            new = apply(db, args, msg)
            print(f"applied {msg.topic()}-{msg.partition()}@{msg.offset()} new={new}", flush=True)
    finally:
        consumer.close()
        db.close()


def apply(db, args, msg):
    """One transaction: the inbox row, the effect when it is new, and the next offset. Retried while another instance holds the lock."""
    payment = json.loads(msg.value())

    def transaction():
        db.execute("BEGIN IMMEDIATE")
        new = db.execute("INSERT OR IGNORE INTO dbo_inbox VALUES (?, ?)", (args.namespace, payment["id"])).rowcount == 1
        if new:
            db.execute("INSERT INTO dbo_ledger VALUES (?, ?, ?)", (args.namespace, payment["id"], payment["amount"]))
        db.execute("INSERT OR REPLACE INTO db_offsets VALUES (?, ?, ?, ?)", (args.group, msg.topic(), msg.partition(), msg.offset() + 1))
        db.execute("COMMIT")
        return new
    return retried_while_busy(db, transaction, tries=50)


if __name__ == "__main__":
    main()
