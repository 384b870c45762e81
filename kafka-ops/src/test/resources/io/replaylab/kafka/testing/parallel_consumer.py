#!/usr/bin/python3
"""A parallel payment consumer on librdkafka, written apart from replay-lab: the polling thread hands each record to a pool of
four worker threads, each applying it in ONE SQLite transaction of its own (inbox row + effect); records finish out of order
(every even offset takes 300 ms longer). Per partition the polling thread commits, after each record that finishes:
- COMMIT=prefix (default, correct): the end of the completed prefix, the lowest offset still in flight, so no commit passes a
  record without its effect (its first commits move nothing while offset 0 is in flight);
- COMMIT=highest (the bug): the highest completed offset + 1, past records still in flight: a crash there loses them.

Args: --bootstrap B --topic T --group G --db PATH --namespace NS --instance NAME
Target query: SELECT id AS message_id, amount FROM p_ledger WHERE ns = {namespace}
"""
import json
import os
import signal
import sqlite3
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from confluent_kafka import Consumer, TopicPartition

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
highest = os.environ.get("COMMIT", "prefix") == "highest"
ns = args["--namespace"]
db_path = args["--db"]
with sqlite3.connect(db_path, timeout=10) as init:
    init.execute("PRAGMA journal_mode=WAL")
    init.execute("CREATE TABLE IF NOT EXISTS p_inbox (ns TEXT, id TEXT, PRIMARY KEY (ns, id))")
    init.execute("CREATE TABLE IF NOT EXISTS p_ledger (ns TEXT, id TEXT, amount INTEGER)")
local = threading.local()


def apply(topic, partition, offset, value):
    if not hasattr(local, "db"):
        local.db = sqlite3.connect(db_path, timeout=10, isolation_level=None)
    payment = json.loads(value)
    if offset % 2 == 0:
        time.sleep(0.3)
    db = local.db
    db.execute("BEGIN IMMEDIATE")
    try:
        if db.execute("INSERT OR IGNORE INTO p_inbox VALUES (?, ?)", (ns, payment["id"])).rowcount == 1:
            db.execute("INSERT INTO p_ledger VALUES (?, ?, ?)", (ns, payment["id"], payment["amount"]))
        db.execute("COMMIT")
    except Exception:
        db.execute("ROLLBACK")
        raise
    return topic, partition, offset


def main():
    consumer = Consumer({"bootstrap.servers": args["--bootstrap"], "group.id": args["--group"], "client.id": args["--instance"],
                         "enable.auto.commit": False, "auto.offset.reset": "earliest", "session.timeout.ms": 6000,
                         "heartbeat.interval.ms": 1000, "max.poll.interval.ms": 10000})
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    consumer.subscribe([args["--topic"]])
    pool = ThreadPoolExecutor(4)
    in_flight = {}  # (topic, partition) -> offsets handed to a worker, not finished
    finished = {}   # (topic, partition) -> the highest finished offset
    work = []
    while not stop:
        m = consumer.poll(0.05)
        if m is not None and not m.error():
            in_flight.setdefault((m.topic(), m.partition()), set()).add(m.offset())
            work.append(pool.submit(apply, m.topic(), m.partition(), m.offset(), m.value()))
        for f in [f for f in work if f.done()]:
            work.remove(f)
            topic, partition, offset = f.result()
            key = (topic, partition)
            in_flight[key].discard(offset)
            finished[key] = max(finished.get(key, -1), offset)
            nxt = finished[key] + 1 if highest or not in_flight[key] else min(in_flight[key])
            try:
                consumer.commit(offsets=[TopicPartition(topic, partition, nxt)], asynchronous=False)
            except Exception as e:
                print("commit failed:", e, flush=True)
    consumer.close()


if __name__ == "__main__":
    main()
