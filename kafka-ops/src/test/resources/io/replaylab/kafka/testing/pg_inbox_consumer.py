#!/usr/bin/python3
"""A serial inbox consumer on librdkafka and libpq (Debian's python3-confluent-kafka and python3-psycopg2), written for
replay-lab's tests apart from the lab: it finds its database as any libpq program does, in PGHOST, PGPORT, PGDATABASE,
PGUSER, PGPASSWORD and PGOPTIONS, and knows nothing of replay-lab.

Per record, in ONE PostgreSQL transaction: the message id into pg_inbox (ON CONFLICT DO NOTHING) and, only when that row
is new, the effect into pg_ledger; THEN commit(message, asynchronous=False). A transaction that fails (a serialization
failure, a deadlock, an admin's termination, a connection lost even while its COMMIT was unanswered) is run again on a new
connection if need be: the inbox makes the retry safe, whatever became of the first try.

--no-inbox: the ledger row for every delivery and every retry (a retry after an ambiguous commit applies it twice);
--skip-on-error: a transaction that fails is logged and skipped, and the record's offset committed all the same;
--autocommit: the two writes run with no transaction at all (never atomic, and never at a COMMIT);
--hang-on-error: a transaction that fails stops the consumer where it is, alive and in its group, forever;
--hang-at-second: stuck for good in its second record's handler, before that record's transaction;
--bookkeeping: before each record's transaction, one of its own that notes the instance was alive (naming no record);
--positions-in-db: its positions kept in pg_positions, written in each record's transaction, and sought to at each
  assignment; it never commits an offset to Kafka (Kafka's "storing offsets outside Kafka").

Target query: SELECT message_id, amount FROM pg_ledger WHERE ns = {namespace}
"""
import json
import time

import psycopg2
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException

from consumer_kit import SHORT_TIMEOUTS, arguments, polled, until_sigterm


def main():
    ap = arguments("bootstrap", "topic", "group", "namespace", "instance")
    ap.add_argument("--no-inbox", action="store_true")
    ap.add_argument("--skip-on-error", action="store_true")
    ap.add_argument("--autocommit", action="store_true")
    ap.add_argument("--hang-on-error", action="store_true")
    ap.add_argument("--hang-at-second", action="store_true")
    ap.add_argument("--bookkeeping", action="store_true")
    ap.add_argument("--positions-in-db", action="store_true")
    args = ap.parse_args()

    stop = until_sigterm()
    db = Database(args.autocommit)
    db.run(schema)

    consumer = Consumer({
        "bootstrap.servers": args.bootstrap,
        "group.id": args.group,
        "client.id": args.instance,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        **SHORT_TIMEOUTS,
    })

    def from_positions(c, parts):  # each partition where its database says it stands, else from the beginning
        stored = dict(db.run(lambda cur: positions(cur, args.group)))
        for p in parts:
            p.offset = stored.get((p.topic, p.partition), OFFSET_BEGINNING)
        c.assign(parts)

    consumer.subscribe([args.topic], **({"on_assign": from_positions} if args.positions_in_db else {}))
    try:
        for msg in polled(consumer, stop, hang_at=2 if args.hang_at_second else None):
            payment = json.loads(msg.value())
            if args.bookkeeping:
                db.run(lambda cur: cur.execute("INSERT INTO pg_alive VALUES (%s, now())", (args.instance,)))
            try:
                new = db.run(lambda cur: apply(cur, args, payment, msg), retry=not (args.skip_on_error or args.hang_on_error))
                print(f"applied {msg.topic()}-{msg.partition()}@{msg.offset()} {payment['id']} new={new}", flush=True)
            except psycopg2.Error as e:
                if args.hang_on_error:
                    print(f"stuck at {payment['id']}: {e.pgcode}", flush=True)
                    while not stop:
                        consumer.poll(0.2)  # alive and in its group, never again applying a record
                    break
                print(f"skipped {payment['id']}: {e.pgcode} {e}".strip(), flush=True)
            if args.positions_in_db:
                continue  # its position went into the database with the effect
            try:
                consumer.commit(message=msg, asynchronous=False)
            except KafkaException as e:
                print("commit failed:", e, flush=True)
    finally:
        consumer.close()
        db.close()


def schema(cur):
    cur.execute("CREATE TABLE IF NOT EXISTS pg_inbox (ns TEXT, message_id TEXT, PRIMARY KEY (ns, message_id))")
    cur.execute("CREATE TABLE IF NOT EXISTS pg_ledger (ns TEXT, message_id TEXT, amount BIGINT)")
    cur.execute("CREATE TABLE IF NOT EXISTS pg_alive (instance TEXT, at TIMESTAMPTZ)")
    cur.execute("CREATE TABLE IF NOT EXISTS pg_positions (grp TEXT, topic TEXT, part INT, next BIGINT, PRIMARY KEY (grp, topic, part))")


def positions(cur, group):
    cur.execute("SELECT topic, part, next FROM pg_positions WHERE grp = %s", (group,))
    return [((t, p), n) for t, p, n in cur.fetchall()]


def apply(cur, args, payment, msg):
    cur.execute("INSERT INTO pg_inbox VALUES (%s, %s) ON CONFLICT DO NOTHING", (args.namespace, payment["id"]))
    new = cur.rowcount == 1
    if new or args.no_inbox:
        cur.execute("INSERT INTO pg_ledger VALUES (%s, %s, %s)", (args.namespace, payment["id"], payment["amount"]))
    if args.positions_in_db:
        cur.execute("INSERT INTO pg_positions VALUES (%s, %s, %s, %s) ON CONFLICT (grp, topic, part) DO UPDATE SET next = EXCLUDED.next",
                    (args.group, msg.topic(), msg.partition(), msg.offset() + 1))
    return new


class Database:
    """One connection, opened again when it is lost; a transaction is one call of run()."""

    def __init__(self, autocommit):
        self.conn = None
        self.autocommit = autocommit

    def run(self, work, retry=True):
        for attempt in range(60):
            try:
                if self.conn is None or self.conn.closed:
                    self.conn = psycopg2.connect("")  # libpq's environment says where
                    self.conn.autocommit = self.autocommit
                if self.autocommit:  # each statement on its own
                    with self.conn.cursor() as cur:
                        return work(cur)
                with self.conn:  # BEGIN ... COMMIT, or ROLLBACK on an error
                    with self.conn.cursor() as cur:
                        return work(cur)
            except psycopg2.Error as e:
                print(f"transaction failed ({e.pgcode}): {str(e).strip()}", flush=True)
                if not retry:
                    raise
                if isinstance(e, (psycopg2.OperationalError, psycopg2.InterfaceError)):
                    self.close()
                time.sleep(0.2)
        raise RuntimeError("the database kept refusing the transaction")

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except psycopg2.Error:
                pass
            self.conn = None


if __name__ == "__main__":
    main()
