"""A program that commits SQLite in a loop, for the native barrier's tests: nothing of replay-lab inside.

usage: commit_loop.py DB MODE [--beat]
  MODE transaction: BEGIN IMMEDIATE; INSERT; COMMIT through Python's sqlite3 (sqlite3_step of COMMIT)
       exec:        the same transaction as one script through sqlite3_exec (ctypes on the system libsqlite3)
       autocommit:  INSERTs with no transaction (they never reach a COMMIT)
       none:        no SQLite at all
  --beat: a second thread prints a heartbeat every 0.1 s (a Kafka client's heartbeat thread)
Prints "committed N" after each commit.
"""
import sys
import threading
import time

db_path, mode = sys.argv[1], sys.argv[2]


def beat():
    n = 0
    while True:
        print("beat", n, flush=True)
        n += 1
        time.sleep(0.1)


if "--beat" in sys.argv:
    threading.Thread(target=beat, daemon=True).start()

if mode == "none":
    print("ready", flush=True)
    while True:
        time.sleep(0.1)

if mode == "exec":
    import ctypes
    import ctypes.util
    lib = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
    handle = ctypes.c_void_p()
    lib.sqlite3_open(db_path.encode(), ctypes.byref(handle))
    # as the sqlite3 module's timeout=10 below: without it a COMMIT that meets the test's read lock fails BUSY and leaves
    # the transaction open, every later BEGIN fails, and no row is ever committed again
    lib.sqlite3_busy_timeout(handle, 10000)
    lib.sqlite3_exec.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.sqlite3_exec(handle, b"CREATE TABLE IF NOT EXISTS t (n INTEGER)", None, None, None)
    print("ready", flush=True)
    n = 0
    while True:
        rc = lib.sqlite3_exec(handle, b"BEGIN IMMEDIATE; INSERT INTO t VALUES (%d); commit transaction;" % n, None, None, None)
        print("committed", n, "rc", rc, flush=True)
        n += 1
        time.sleep(0.05)

import sqlite3
db = sqlite3.connect(db_path, isolation_level=None, timeout=10)
db.execute("CREATE TABLE IF NOT EXISTS t (n INTEGER)")
print("ready", flush=True)
n = 0
while True:
    if mode == "autocommit":
        db.execute("INSERT INTO t VALUES (?)", (n,))
    else:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t VALUES (?)", (n,))
        db.execute("Commit;")
    print("committed", n, flush=True)
    n += 1
    time.sleep(0.05)
