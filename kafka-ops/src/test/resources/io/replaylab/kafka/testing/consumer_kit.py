"""What the serial test consumers share, as a real consumer's own module would: the lab's placeholders as
arguments, short group timeouts, the poll loop that ends at SIGTERM, a handler stuck for good, and a SQLite
transaction retried while another instance holds the write lock. Copied beside each consumer."""
import argparse
import signal
import sqlite3
import sys
import time

# the lab's short timeouts, so that a rebalance takes seconds (a consumer with --client-timeouts keeps librdkafka's)
SHORT_TIMEOUTS = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 1500, "max.poll.interval.ms": 10000}


def arguments(*placeholders):
    """A parser that requires each of the lab's placeholders as a flag: arguments("bootstrap", "topic") takes --bootstrap, --topic."""
    ap = argparse.ArgumentParser()
    for name in placeholders:
        ap.add_argument("--" + name, required=True)
    return ap


def until_sigterm():
    """A list that SIGTERM makes non-empty: the loops below end then, and the consumer closes."""
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    return stop


def polled(consumer, stop, hang_at=None):
    """Each record the consumer polls until stop; an error a poll returns is printed and passed over (librdkafka retries).
    With hang_at=n, the n-th record (from 1) never comes back: the consumer hangs for good as it gets it, as one whose handler never
    returns."""
    handed = 0
    while not stop:
        msg = consumer.poll(0.2)
        if msg is None:
            continue
        if msg.error():
            print("consumer error:", msg.error(), file=sys.stderr, flush=True)
            continue
        handed += 1
        if handed == hang_at:
            hang()
        yield msg


def hang():
    """Stuck for good, as a handler whose call never returns: no poll, no commit, no transaction (SIGTERM does not end it)."""
    while True:
        time.sleep(3600)


def inbox_db(path, prefix):
    """The consumer's SQLite target in WAL mode, with its tables <prefix>_inbox (ns, message_id) and <prefix>_ledger
    (ns, message_id, amount)."""
    db = sqlite3.connect(path, timeout=10, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"CREATE TABLE IF NOT EXISTS {prefix}_inbox (ns TEXT, message_id TEXT, PRIMARY KEY (ns, message_id))")
    db.execute(f"CREATE TABLE IF NOT EXISTS {prefix}_ledger (ns TEXT, message_id TEXT, amount INTEGER)")
    return db


def retried_while_busy(db, transaction, tries=30):
    """transaction()'s result, run again while another instance holds SQLite's write lock (a failed try rolled back)."""
    for _ in range(tries):
        try:
            return transaction()
        except sqlite3.OperationalError as e:
            if db.in_transaction:
                db.execute("ROLLBACK")
            print("db busy, retrying:", e, flush=True)
            time.sleep(0.2)
    raise RuntimeError("the database stayed locked")
