# gdb Python for NativePoint.sqliteCommit(): is this sqlite3_step / sqlite3_exec the end of the
# outermost transaction? Runs inside gdb, never inside the program. The statement's SQL is read
# from the statement object itself: its offset is learned once, by scanning the statement for the
# pointer to its SQL text, so every hit reads memory only. No inferior call: calling sqlite3_sql in
# the program is slower, and on some kernels and CPUs gdb cannot make one at all ("Couldn't write
# extended state status: Bad address", seen on gdb 13.1, Debian 12), which left the point unreachable.
import re
import gdb

_END = re.compile(r"^\s*(COMMIT|END)(\s+TRANSACTION)?\s*;?\s*$", re.IGNORECASE)
_state = {"offset": -1, "last": "", "evaluated": 0}


def _text(addr, limit=4096):
    if addr == 0:
        return ""
    inf = gdb.selected_inferior()
    out = b""
    while len(out) < limit:
        try:
            chunk = inf.read_memory(addr + len(out), 64).tobytes()
        except gdb.MemoryError:
            chunk = inf.read_memory(addr + len(out), 1).tobytes()
        nul = chunk.find(b"\0")
        if nul >= 0:
            return (out + chunk[:nul]).decode("utf-8", "replace")
        out += chunk
    return out.decode("utf-8", "replace")


def _pointer(addr):
    return int.from_bytes(gdb.selected_inferior().read_memory(addr, 8).tobytes(), "little")


def _never_raises(invoke):
    """A condition that raises makes gdb STOP at the breakpoint: a BEGIN or INSERT held as "the commit". Never raise."""
    def safe(*args):
        try:
            return invoke(*args)
        except Exception:  # a read of freed or unmapped memory, a value gdb cannot convert
            return 0
    return safe


def _ends(sql):
    _state["evaluated"] += 1
    if _END.match(sql):
        _state["last"] = sql
        return 1
    return 0


_SQL_START = re.compile(r"^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE|INSERT|UPDATE|DELETE|SELECT|REPLACE|UPSERT|WITH|VALUES|"
                        r"CREATE|DROP|ALTER|PRAGMA|ATTACH|DETACH|VACUUM|ANALYZE|REINDEX|EXPLAIN)\b", re.IGNORECASE)


def _sql_at(addr):
    """The NUL-terminated printable text at addr when it reads as an SQL statement, else None."""
    if addr < 4096 or addr >= (1 << 47):
        return None
    try:
        head = gdb.selected_inferior().read_memory(addr, 16).tobytes()
    except gdb.MemoryError:
        return None
    if not _SQL_START.match(head.split(b"\0")[0].decode("ascii", "replace")):
        return None
    text = _text(addr)
    return text if _SQL_START.match(text) else None


class _Learned(gdb.Function):
    def __init__(self):
        super().__init__("_rl_learned")

    def invoke(self):
        return 1 if _state["offset"] >= 0 else 0


class _Scan(gdb.Function):
    """First hit: find where the statement keeps its SQL by scanning it for a pointer to SQL text."""

    def __init__(self):
        super().__init__("_rl_scan")

    def invoke(self, stmt):
        p = int(stmt)
        if p == 0:
            return 0
        blob = gdb.selected_inferior().read_memory(p, 1024).tobytes()
        for off in range(0, len(blob) - 7, 8):
            sql = _sql_at(int.from_bytes(blob[off:off + 8], "little"))
            if sql is not None:
                _state["offset"] = off
                return _ends(sql)
        return 0


class _StepEnds(gdb.Function):
    def __init__(self):
        super().__init__("_rl_step_ends")

    def invoke(self, stmt):
        p = int(stmt)
        if p == 0:
            return 0
        return _ends(_text(_pointer(p + _state["offset"])))


class _ExecEnds(gdb.Function):
    """sqlite3_exec runs a script: it ends a transaction when one of its statements does."""

    def __init__(self):
        super().__init__("_rl_exec_ends")

    def invoke(self, sql):
        text = _text(int(sql), 1 << 20)
        _state["evaluated"] += 1
        if any(_END.match(part + ";") for part in text.split(";")):
            _state["last"] = text
            return 1
        return 0


class _Last(gdb.Function):
    def __init__(self):
        super().__init__("_rl_last")

    def invoke(self):
        return _state["last"]


class _Evaluated(gdb.Function):
    def __init__(self):
        super().__init__("_rl_evaluated")

    def invoke(self):
        return _state["evaluated"]


for f in (_Scan, _StepEnds, _ExecEnds):
    f.invoke = _never_raises(f.invoke)
for f in (_Learned, _Scan, _StepEnds, _ExecEnds, _Last, _Evaluated):
    f()
