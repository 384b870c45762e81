package io.replaylab.barrier.gdb;

import io.replaylab.barrier.NativePoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.BarrierTransition;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.HoldMode;
import io.replaylab.kafka.testing.Gdb;
import io.replaylab.kafka.testing.PythonConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The native barrier on real processes: a Python program committing SQLite (the system libsqlite3) in a loop, held by a real gdb. */
class NativeDebuggerTest {
    @TempDir
    Path dir;

    private final List<Process> programs = new ArrayList<>();
    private final List<BarrierTransition> moves = new CopyOnWriteArrayList<>();
    private final BarrierListener listener = moves::add;

    @AfterEach
    void stopPrograms() {
        programs.forEach(Process::destroyForcibly);
    }

    @Test
    void aThreadHeldAtItsCommitKeepsTheRowInvisibleWhileItsOtherThreadRunsAndReleaseCommitsIt() throws Exception {
        Process p = start("transaction", "--beat");
        try (NativeDebugger gdb = attachAtCommit(p)) {
            assertThat(gdb.library().toString()).contains("libsqlite3");
            Barrier b = gdb.arm("db-commit", NativePoint.sqliteCommit(), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
            Arrival a = b.awaitArrival(Duration.ofSeconds(20));

            assertThat(a.context()).containsEntry("function", "sqlite3_step").containsEntry("sql", "Commit;")
                    .containsEntry("pid", Long.toString(p.pid()));
            assertThat(a.context().get("library")).contains("libsqlite3");
            assertThat(a.context().get("threads")).contains("1 running while this one is held");
            assertThat(a.stack()).first().asString().startsWith("sqlite3_step");
            long rows = rows();
            int beats = count("beat");
            Thread.sleep(1000);
            assertThat(rows()).as("the held COMMIT's row is not visible to a second connection").isEqualTo(rows);
            assertThat(count("committed")).as("the program printed no commit while held").isEqualTo((int) rows);
            assertThat(count("beat")).as("the other thread ran on (non-stop)").isGreaterThan(beats + 5);

            b.release();
            CallOutcome o = b.awaitOutcome(Duration.ofSeconds(10)).orElseThrow();
            assertThat(o.verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
            awaitRows(rows + 3);
        }
        assertThat(p.isAlive()).isTrue();
        assertThat(ProcessTree.tracer(p.pid())).as("detached").isZero();
        long after = rows();
        awaitRows(after + 3); // it runs on, with no breakpoint left
    }

    @Test
    void aProgramKilledWhileHeldLosesOnlyItsOpenTransactionAndItsDatabaseStaysIntact() throws Exception {
        Process p = start("transaction");
        try (NativeDebugger gdb = attachAtCommit(p)) {
            Barrier b = heldAtCommit(gdb, HoldMode.THREAD);
            assertThat(b.arrival().orElseThrow().context().get("threads")).contains("a thread hold is a freeze");
            p.destroyForcibly();
            assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("SIGKILL ends a program held under ptrace").isTrue();
            awaitState(b, BarrierState.RELEASED);
            assertThat(moves).anyMatch(t -> t.to() == BarrierState.RELEASED && t.by().equals("program-exit"));
        }
        java.util.Properties busy = new java.util.Properties();
        busy.setProperty("busy_timeout", "5000"); // the program writes on while the test reads: wait out its commit's lock
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"), busy);
                ResultSet r = c.createStatement().executeQuery("PRAGMA integrity_check")) {
            r.next();
            assertThat(r.getString(1)).isEqualTo("ok");
        }
        assertThat(rows()).as("every commit the program printed is there, the held one is not").isEqualTo(count("committed"));
    }

    @Test
    void aFreezeStopsEveryThreadThroughTheDebuggerConfirmedInProcAndAThawLetsThemRun() throws Exception {
        Process p = start("transaction", "--beat");
        try (NativeDebugger gdb = attachAtCommit(p)) {
            Barrier b = heldAtCommit(gdb, HoldMode.THREAD);
            Map<Long, Character> states = gdb.freeze();
            assertThat(states).hasSizeGreaterThanOrEqualTo(2).allSatisfy((tid, s) -> assertThat(s).isEqualTo('t'));
            assertThat(gdb.isFrozen()).isTrue();
            int beats = count("beat");
            Thread.sleep(700);
            assertThat(count("beat")).as("no thread runs while frozen").isLessThanOrEqualTo(beats + 1);

            gdb.thaw();
            Thread.sleep(700);
            assertThat(count("beat")).as("the other thread runs again").isGreaterThan(beats + 3);
            assertThat(b.state()).as("the held thread stays held until its release").isEqualTo(BarrierState.HELD);
            long rows = rows();
            b.release();
            awaitRows(rows + 2);
        }
    }

    @Test
    void aProcessHoldStopsEveryThreadAtTheArrival() throws Exception {
        Process p = start("transaction", "--beat");
        try (NativeDebugger gdb = attachAtCommit(p)) {
            Barrier b = heldAtCommit(gdb, HoldMode.PROCESS);
            assertThat(ProcessTree.threadStates(p.pid())).allSatisfy((tid, s) -> assertThat(s).isEqualTo('t'));
            long rows = rows();
            b.release();
            assertThat(b.awaitOutcome(Duration.ofSeconds(10)).orElseThrow().verdict()).isEqualTo(CallOutcome.Verdict.ACCEPTED);
            awaitRows(rows + 2);
            assertThat(gdb.isFrozen()).isFalse();
        }
    }

    @Test
    void aScriptRunThroughSqliteExecIsHeldAtItsCommit() throws Exception {
        Process p = start("exec");
        try (NativeDebugger gdb = attachAtCommit(p)) {
            Barrier b = gdb.arm("db-commit", NativePoint.sqliteCommit(), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
            Arrival a = b.awaitArrival(Duration.ofSeconds(20));
            assertThat(a.context().get("function")).isIn("sqlite3_exec", "sqlite3_step");
            assertThat(a.context().get("sql")).containsIgnoringCase("commit transaction");
            long rows = rows();
            Thread.sleep(500);
            assertThat(rows()).isEqualTo(rows);
            b.release();
            awaitRows(rows + 2);
        }
    }

    @Test
    void autocommitWritesNeverReachTheCommitPoint() throws Exception {
        Process p = start("autocommit");
        try (NativeDebugger gdb = attachAtCommit(p)) {
            Barrier b = gdb.arm("db-commit", NativePoint.sqliteCommit(), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
            long rows = rows();
            assertThat(b.tryAwaitArrival(Duration.ofSeconds(2))).isEmpty();
            assertThat(rows()).as("it wrote on, through the armed point").isGreaterThan(rows + 5);
            assertThat(gdb.evaluations()).as("every sqlite3_step was looked at").isGreaterThan(5);
            assertThat(NativePoint.sqliteCommit().unreached()).contains("autocommit");
        }
    }

    @Test
    void aProgramStartedThroughAWrapperIsFoundInItsDescendantsAndACrashKillsItNotOnlyTheWrapper() throws Exception {
        Path script = script();
        Process sh = track(new ProcessBuilder("/bin/sh", "-c", "'" + PythonConsumer.python() + "' '" + script + "' '" + dir.resolve("t.db") + "' transaction; true")
                .redirectOutput(dir.resolve("out").toFile()).redirectErrorStream(true).start());
        try (NativeDebugger gdb = NativeDebugger.to(sh.pid()).gdb(Gdb.require()).attach(NativePoint.sqliteCommit())) {
            assertThat(gdb.pid()).isNotEqualTo(sh.pid());
            assertThat(ProcessTree.command(gdb.pid())).contains("commit_loop.py");
            Barrier b = gdb.arm("db-commit", NativePoint.sqliteCommit(), HoldMode.THREAD, listener, BarrierOptions.ofDefaults());
            assertThat(b.awaitArrival(Duration.ofSeconds(20)).context()).containsEntry("sql", "Commit;");
            long held = gdb.pid();

            Thread.currentThread().interrupt(); // a stop of the run asked meanwhile: the crash is still carried out to its end
            gdb.killProgram(); // the crash reaches the program itself, not only its wrapper

            assertThat(Thread.interrupted()).as("the interrupt is passed on").isTrue();
            assertThat(ProcessTree.alive(held)).isFalse();
            awaitState(b, BarrierState.RELEASED);
            assertThat(moves).anyMatch(t -> t.to() == BarrierState.RELEASED && t.by().equals("program-exit"));
        } finally {
            ProcessHandle.of(sh.pid()).ifPresent(h -> h.descendants().forEach(ProcessHandle::destroyForcibly));
        }
    }

    @Test
    void aPointWhoseHelperWasNotLoadedAtTheAttachIsRefusedByName() throws Exception {
        Process p = start("transaction", "--beat");
        try (NativeDebugger gdb = NativeDebugger.to(p.pid()).gdb(Gdb.require()).attach(NativePoint.function("sqlite3_step"))) {
            assertThatThrownBy(() -> gdb.arm("db-commit", NativePoint.sqliteCommit(), HoldMode.THREAD, listener, BarrierOptions.ofDefaults()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sqlite_point.py").hasMessageContaining("attach with that point");
        }
    }

    @Test
    void aProgramWithoutSqliteIsNotFoundAndTheErrorNamesWhatWasSearched() throws Exception {
        Process p = start("none");
        assertThatThrownBy(() -> NativeDebugger.to(p.pid()).gdb(Gdb.require()).searchTimeout(Duration.ofMillis(500)).attach(NativePoint.sqliteCommit()))
                .isInstanceOfSatisfying(NativeAttachException.class, e -> assertThat(e.reason()).isEqualTo(NativeAttachException.Reason.NOT_FOUND))
                .hasMessageContaining("no sqlite3_step in pid " + p.pid()).hasMessageContaining("commit_loop.py").hasMessageContaining("mapped files");
    }

    @Test
    void withoutGdbTheErrorSaysHowToInstallIt() throws Exception {
        Process p = start("transaction");
        assertThatThrownBy(() -> NativeDebugger.to(p.pid()).gdb(dir.resolve("no-gdb").toString()).attach(NativePoint.sqliteCommit()))
                .isInstanceOfSatisfying(NativeAttachException.class, e -> assertThat(e.reason()).isEqualTo(NativeAttachException.Reason.NO_DEBUGGER))
                .hasMessageContaining("apt-get install -y gdb");
    }

    @Test
    void aProgramAnotherDebuggerTracesIsRefusedNamingTheTracer() throws Exception {
        Process p = start("transaction");
        try (NativeDebugger first = NativeDebugger.to(p.pid()).gdb(Gdb.require()).attach(NativePoint.sqliteCommit())) {
            assertThatThrownBy(() -> NativeDebugger.to(p.pid()).gdb(Gdb.require()).attach(NativePoint.sqliteCommit()))
                    .isInstanceOfSatisfying(NativeAttachException.class, e -> assertThat(e.reason()).isEqualTo(NativeAttachException.Reason.NO_PTRACE))
                    .hasMessageContaining("traces it already");
        }
    }

    @Test
    void aProgramThatEndedBeforeTheSearchIsGone() throws Exception {
        Process p = start("none");
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> NativeDebugger.to(p.pid()).gdb(Gdb.require()).attach(NativePoint.sqliteCommit()))
                .isInstanceOfSatisfying(NativeAttachException.class, e -> assertThat(e.reason()).isEqualTo(NativeAttachException.Reason.GONE));
    }

    @Test
    void gdbWhoseInputEndsDetachesAndTheArmedProgramRunsOn() throws Exception {
        Process p = start("autocommit");
        NativeDebugger gdb = attachAtCommit(p);
        gdb.arm("db-commit", NativePoint.function("sqlite3_step"), HoldMode.THREAD, listener, BarrierOptions.ofDefaults().when(c -> false));
        Thread.sleep(300);
        gdbSession(gdb).close(); // what a controller killed with SIGKILL leaves: gdb's stdin at its end, a breakpoint inserted
        long rows = rows();
        awaitRows(rows + 10);
        assertThat(p.isAlive()).as("no trap left behind (a SIGTRAP would have killed it)").isTrue();
        assertThat(ProcessTree.tracer(p.pid())).isZero();
        gdb.close();
    }

    // ---- helpers

    private static GdbSession gdbSession(NativeDebugger d) throws ReflectiveOperationException {
        var f = NativeDebugger.class.getDeclaredField("gdb");
        f.setAccessible(true);
        return (GdbSession) f.get(d);
    }

    /** gdb attached to the program, with the SQLite commit point's helper. */
    private static NativeDebugger attachAtCommit(Process p) throws InterruptedException {
        return NativeDebugger.to(p.pid()).gdb(Gdb.require()).attach(NativePoint.sqliteCommit());
    }

    private Process start(String mode, String... flags) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(PythonConsumer.python(), script().toString(), dir.resolve("t.db").toString(), mode));
        cmd.addAll(List.of(flags));
        Process p = track(new ProcessBuilder(cmd).redirectOutput(dir.resolve("out").toFile()).redirectErrorStream(true).start());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (count("ready") == 0) {
            assertThat(p.isAlive()).as("the program runs: " + Files.readString(dir.resolve("out"))).isTrue();
            assertThat(System.nanoTime()).as("the program started within 20 s").isLessThan(deadline);
            Thread.sleep(20);
        }
        return p;
    }

    private Process track(Process p) {
        programs.add(p);
        return p;
    }

    private Path script() throws IOException {
        Path s = dir.resolve("commit_loop.py");
        try (InputStream in = NativeDebuggerTest.class.getResourceAsStream("commit_loop.py")) {
            Files.write(s, in.readAllBytes());
        }
        return s;
    }

    private int count(String word) throws IOException {
        return (int) Files.readAllLines(dir.resolve("out")).stream().filter(l -> l.startsWith(word)).count();
    }

    private long rows() throws SQLException {
        java.util.Properties busy = new java.util.Properties();
        busy.setProperty("busy_timeout", "5000"); // the program writes on while the test reads: wait out its commit's lock
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"), busy);
                ResultSet r = c.createStatement().executeQuery("SELECT count(*) FROM t")) {
            r.next();
            return r.getLong(1);
        }
    }

    private void awaitRows(long atLeast) throws Exception {
        // 30 s: a released program on a loaded 2-core machine (a full suite beside it) once took longer than 10 s for two rows
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (rowsUnlessBusy() < atLeast) {
            assertThat(System.nanoTime()).as("at least " + atLeast + " rows within 30 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    /** A program that commits in a loop can keep a reader out past its busy timeout on a loaded machine (a fresh-clone run did): try again. */
    private long rowsUnlessBusy() throws SQLException {
        try {
            return rows();
        } catch (org.sqlite.SQLiteException e) {
            if (e.getResultCode() != org.sqlite.SQLiteErrorCode.SQLITE_BUSY) {
                throw e;
            }
            return -1;
        }
    }

    private static void awaitState(Barrier b, BarrierState s) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (b.state() != s && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(b.state()).isEqualTo(s);
    }

    /** The barrier at the SQLite commit, armed in {@code mode} and reached. */
    private Barrier heldAtCommit(NativeDebugger gdb, HoldMode mode) throws InterruptedException {
        Barrier b = gdb.arm("db-commit", NativePoint.sqliteCommit(), mode, listener, BarrierOptions.ofDefaults());
        b.awaitArrival(Duration.ofSeconds(20));
        return b;
    }
}
