#!/usr/bin/python3
"""A serial inbox consumer on kafka-python (Debian's python3-kafka), not librdkafka: a third client with defaults of its own
(session_timeout_ms 10 s, max_poll_interval_ms 300 s), kept as they are. Written for replay-lab's tests, nothing of replay-lab
inside it.

Per record, in ONE SQLite transaction: the message id into the inbox (INSERT OR IGNORE) and, only when that row is new, the
effect into the ledger; THEN commit() of the record's next offset. kafka-python 2.0 has no isolation setting: it always reads
uncommitted, so records of aborted transactions are applied too (the defect the lab names on a source with aborted ones).

Target query: SELECT message_id, amount FROM kp_ledger WHERE ns = {namespace}
"""
import json

from kafka import KafkaConsumer
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata

from consumer_kit import arguments, inbox_db, retried_while_busy, until_sigterm


def main():
    args = arguments("bootstrap", "topic", "group", "db", "namespace", "instance").parse_args()
    stop = until_sigterm()

    db = inbox_db(args.db, "kp")

    consumer = KafkaConsumer(bootstrap_servers=args.bootstrap, group_id=args.group, client_id=args.instance,
                             enable_auto_commit=False, auto_offset_reset="earliest")
    consumer.subscribe([args.topic])
    try:
        while not stop:
            for part, records in consumer.poll(timeout_ms=200, max_records=1).items():
                for record in records:
                    try:
                        payment = json.loads(record.value)
                    except ValueError:
                        print(f"unreadable {part.topic}-{part.partition}@{record.offset}, passed over", flush=True)
                    else:
                        new = apply(db, args.namespace, payment)
                        print(f"applied {part.topic}-{part.partition}@{record.offset} new={new}", flush=True)
                    try:
                        consumer.commit({part: OffsetAndMetadata(record.offset + 1, None)})
                    except KafkaError as e:
                        print("commit failed:", e, flush=True)
    finally:
        consumer.close()
        db.close()


def apply(db, ns, payment):
    """One transaction: the inbox row and, when it is new, the effect. Retried while another instance holds the write lock."""
    def transaction():
        db.execute("BEGIN IMMEDIATE")
        new = db.execute("INSERT OR IGNORE INTO kp_inbox VALUES (?, ?)", (ns, payment["id"])).rowcount == 1
        if new:
            db.execute("INSERT INTO kp_ledger VALUES (?, ?, ?)", (ns, payment["id"], payment["amount"]))
        db.execute("COMMIT")
        return new
    return retried_while_busy(db, transaction)


if __name__ == "__main__":
    main()
