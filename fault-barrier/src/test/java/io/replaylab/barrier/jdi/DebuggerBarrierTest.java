package io.replaylab.barrier.jdi;

import io.replaylab.barrier.MethodPoint;
import io.replaylab.barrier.HoldMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.BarrierTimeoutException;
import io.replaylab.barrier.BarrierTransition;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.CommitOffset;
import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.kafka.KafkaOps;
import io.replaylab.kafka.LabNamespace;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.testing.Clients;
import io.replaylab.kafka.testing.Groups;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.provider.CsvSource;

/** The debugger barrier against a real broker and a real consumer process it knows nothing about. */
@LocalKafkaTest
@Execution(ExecutionMode.CONCURRENT) // two at a time (the module's surefire settings): each test has its own namespace, dir and JVMs
class DebuggerBarrierTest {
    @TempDir
    Path dir;

    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private final List<BarrierTransition> moves = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopEverything() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
    }

    private List<String> command(LocalKafka kafka, LabNamespace ns, String protocol, String client, int maxPollMs, int sessionMs, String... more) {
        List<String> args = new ArrayList<>(List.of(kafka.bootstrapServers(), ns.topic(), ns.group(), protocol, "" + maxPollMs, "" + sessionMs,
                dir.resolve("target.db").toString(), client));
        args.addAll(List.of(more));
        return ChildProcess.java(ChildProcess.shortLived("-Xmx128m"), CommitLoopMain.class.getName(), args.toArray(String[]::new));
    }

    private ChildProcess launch(List<String> cmd, String name) {
        // suspended until the test has armed its barrier and resumed it: the first commit cannot slip by
        ChildProcess p = ChildProcess.of(cmd).name(name).output(dir.resolve(name + ".out"), dir.resolve(name + ".err"))
                .debuggerAgent(true, Duration.ofSeconds(30)).start();
        cleanup.add(p::kill);
        return p;
    }

    /** A on a new one-partition topic of {@code records} records, the classic protocol and long timeouts, launched suspended. */
    private ChildProcess launchA(LocalKafka kafka, LabNamespace ns, int records, String... options) {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, records);
        return launch(command(kafka, ns, "classic", "A", 300000, 10000, options), "A");
    }

    private ChildProcess plain(List<String> cmd, String name) {
        ChildProcess p = ChildProcess.of(cmd).name(name).output(dir.resolve(name + ".out"), dir.resolve(name + ".err")).start();
        cleanup.add(p::kill);
        return p;
    }

    private DebuggerBarrier attach(ChildProcess p) {
        DebuggerBarrier d = DebuggerBarrier.attach(p.debugPort().orElseThrow(), Duration.ofSeconds(10));
        cleanup.add(d);
        return d;
    }

    /** A program A with two records to commit, launched suspended, its barrier armed at commitSync, then let run. */
    private record Armed(ChildProcess program, DebuggerBarrier debugger, Barrier barrier) {
    }

    private Armed armedOnTwoRecords(LocalKafka kafka, LabNamespace ns, HoldMode mode, Duration holdTimeout) throws InterruptedException {
        ChildProcess a = launchA(kafka, ns, 2);
        DebuggerBarrier debugger = attach(a);
        Barrier barrier = debugger.arm("offset-commit", MethodPoint.kafkaCommitSync(), mode, moves::add,
                BarrierOptions.ofDefaults().holdTimeout(holdTimeout));
        debugger.resumeProgram();
        return new Armed(a, debugger, barrier);
    }

    /** A program A with one record to commit (with {@code options}, see {@link CommitLoopMain}), launched suspended, its barrier armed at commitSync, then let run. */
    private Armed armedOnOneRecord(LocalKafka kafka, LabNamespace ns, HoldMode mode, String... options) throws InterruptedException {
        ChildProcess a = launchA(kafka, ns, 1, options);
        DebuggerBarrier debugger = attach(a);
        Barrier barrier = debugger.arm("offset-commit", MethodPoint.kafkaCommitSync(), mode, moves::add, BarrierOptions.ofDefaults());
        debugger.resumeProgram();
        return new Armed(a, debugger, barrier);
    }

    /** Released, the held commit is accepted, and the broker stores the very offset the arrival showed. */
    private void releasedItCommits(Armed a, LocalKafka kafka, LabNamespace ns, CommitOffset read) throws Exception {
        a.barrier().release();
        assertThat(a.barrier().awaitOutcome(Duration.ofSeconds(30)).orElseThrow().verdict() == CallOutcome.Verdict.ACCEPTED).isTrue();
        a.program().awaitOutput("commit accepted", Duration.ofSeconds(20));
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers(), Duration.ofSeconds(10))) {
            assertThat(ops.describe(ns.group()).partitions()).singleElement()
                    .satisfies(p -> assertThat(new CommitOffset(p.topic(), p.partition(), p.committed())).isEqualTo(read));
        }
    }

    @ParameterizedTest(name = "{0} map, {1} hold")
    @CsvSource({"tree, THREAD", "singleton, PROCESS", "concurrent, THREAD", "own, PROCESS"})
    void aCommitOfAnyMapIsReadThroughTheMapInterface(String kind, HoldMode mode, LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnOneRecord(kafka, ns, mode, "map=" + kind);

        Arrival arrival = a.barrier().awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.offsets()).containsExactly(new CommitOffset(ns.topic(), 0, 1));
        assertThat(arrival.context()).containsEntry("offsets", ns.topic() + "-0=1");
        assertThat(Files.readString(dir.resolve("A.out"))).contains("calling commitSync 0@1").doesNotContain("commit accepted");
        releasedItCommits(a, kafka, ns, arrival.offsets().get(0));
    }

    @Test
    void aMapWhoseMethodsLoadAClassIsReadWhileAnInterfacePointWatchesEveryClassLoad(LocalKafka kafka, LabNamespace ns) throws Exception {
        ChildProcess a = launchA(kafka, ns, 1, "map=own");
        DebuggerBarrier debugger = attach(a);
        // an interface point watches every class loaded (this method is never called): the read loads the map's entry classes
        // on the held thread, each load an event that stops it until the debugger resumes it
        Barrier watcher = debugger.arm("rollback", new MethodPoint("java.sql.Connection", "rollback"), HoldMode.THREAD, BarrierListener.NONE,
                BarrierOptions.ofDefaults());
        Barrier barrier = debugger.arm("offset-commit", MethodPoint.kafkaCommitSync(), HoldMode.PROCESS, moves::add, BarrierOptions.ofDefaults());
        debugger.resumeProgram();

        Arrival arrival = barrier.awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.offsets()).containsExactly(new CommitOffset(ns.topic(), 0, 1));
        assertThat(watcher.state()).isEqualTo(BarrierState.ARMED);
        releasedItCommits(new Armed(a, debugger, barrier), kafka, ns, arrival.offsets().get(0));
    }

    @Test
    void aMapWhoseMethodsWaitForALockASuspendedThreadHoldsIsHeldUnreadAndRunsOnOnceReleased(LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnOneRecord(kafka, ns, HoldMode.PROCESS, "map=locked"); // the lock's holder sleeps, suspended, for 15 s

        Arrival arrival = a.barrier().awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.offsets()).isEmpty();
        assertThat(arrival.context().get("offsets")).startsWith("(unreadable " + CommitLoopMain.LockedOffsets.class.getName() + ": ")
                .contains("did not return within 6 s");
        // released before the holder lets go: the read's call is still waiting in the program, and the thread must run on after it
        releasedItCommits(a, kafka, ns, new CommitOffset(ns.topic(), 0, 1));
    }

    @Test
    void aCommitOfTheConsumersOwnPositionsIsHeldWithItsOffsetsNamedUnreadable(LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnOneRecord(kafka, ns, HoldMode.THREAD, "positions");

        Arrival arrival = a.barrier().awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.offsets()).as("commitSync() names no offsets: none read, none made up").isEmpty();
        assertThat(arrival.facts().unreadableOffsets()).hasValue("(no offsets in the call: commitSync() commits the consumer's own positions)");
        releasedItCommits(a, kafka, ns, new CommitOffset(ns.topic(), 0, 1));
    }

    @Test
    void aCommitOfNoOffsetsPassesAndTheBarrierHoldsTheNextCommit(LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnOneRecord(kafka, ns, HoldMode.THREAD, "empty-first");

        Arrival arrival = a.barrier().awaitArrival(Duration.ofSeconds(60));

        assertThat(Files.readString(dir.resolve("A.out"))).as("commitSync(Map.of()) and commitSync(Collections.emptyMap()) passed")
                .contains("empty commitSyncs returned", "calling commitSync 0@1").doesNotContain("commit accepted");
        assertThat(arrival.offsets()).containsExactly(new CommitOffset(ns.topic(), 0, 1));
        assertThat(moves).extracting(BarrierTransition::to).containsExactly(BarrierState.ARMED, BarrierState.HELD);
        releasedItCommits(a, kafka, ns, arrival.offsets().get(0));
    }

    @ParameterizedTest(name = "{0} protocol, {1} hold")
    @CsvSource({"classic, THREAD", "classic, PROCESS", "consumer, THREAD", "consumer, PROCESS"})
    void commitHeldAfterTheDbCommitIsRejectedOnceThePartitionMovedToB(String protocol, HoldMode mode, LocalKafka kafka, LabNamespace ns)
            throws Exception {
        Clients.topicWith(kafka.bootstrapServers(), ns.topic(), 1, 3);
        // thread hold: the poll interval expires (4 s); process hold: the session times out (3 s classic; broker's 6 s for consumer)
        ChildProcess a = launch(command(kafka, ns, protocol, "A", mode == HoldMode.THREAD ? 4000 : 300000, 3000), "A");
        DebuggerBarrier debugger = attach(a);
        Barrier barrier = debugger.arm("offset-commit", MethodPoint.kafkaCommitSync(), mode, moves::add, BarrierOptions.ofDefaults());
        debugger.resumeProgram();

        Arrival arrival = barrier.awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.context()).containsEntry("offsets", ns.topic() + "-0=1");
        assertThat(arrival.stack().get(0)).startsWith("org.apache.kafka.clients.consumer.KafkaConsumer.commitSync");
        assertThat(CommitLoopMain.effects(dir.resolve("target.db"), "A")).as("held after its DB commit").isEqualTo(1);
        assertThat(Files.readString(dir.resolve("A.out"))).contains("calling commitSync 0@1").doesNotContain("commit accepted");

        plain(command(kafka, ns, protocol, "B", 300000, 3000), "B");
        Groups.awaitSoleOwner(kafka.bootstrapServers(), ns.group(), "B", Duration.ofSeconds(60));
        barrier.release();
        CallOutcome outcome = barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow();

        assertThat(outcome.verdict() == CallOutcome.Verdict.ACCEPTED).isFalse();
        assertThat(outcome.exceptionClass()).isEqualTo("org.apache.kafka.clients.consumer.CommitFailedException");
        assertThat(outcome.message()).isNotBlank();
        a.awaitOutput("commit rejected", Duration.ofSeconds(20));
        assertThat(moves).extracting(BarrierTransition::to).containsExactly(BarrierState.ARMED, BarrierState.HELD, BarrierState.RELEASED);
    }

    @Test
    void aBriefHoldWithNoRebalanceIsAccepted(LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnTwoRecords(kafka, ns, HoldMode.THREAD, BarrierOptions.ofDefaults().holdTimeout());
        Barrier barrier = a.barrier();
        barrier.awaitArrival(Duration.ofSeconds(60));
        barrier.release();

        CallOutcome outcome = barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow();

        assertThat(outcome.verdict() == CallOutcome.Verdict.ACCEPTED).isTrue();
        a.program().awaitOutput("commit accepted", Duration.ofSeconds(20));
        assertThat(CommitLoopMain.awaitEffects(dir.resolve("target.db"), "A", 2)).as("the one-shot barrier let later commits pass").isEqualTo(2);
    }

    @Test
    void aProgramThatNeverCommitsLeavesTheBarrierExpired(LocalKafka kafka, LabNamespace ns) throws Exception {
        Clients.createTopic(kafka.bootstrapServers(), ns.topic(), 1); // empty topic: nothing to commit
        ChildProcess a = launch(command(kafka, ns, "classic", "A", 300000, 10000), "A");
        DebuggerBarrier debugger = attach(a);
        Barrier barrier = debugger.arm("offset-commit", MethodPoint.kafkaCommitSync(), HoldMode.THREAD, moves::add, BarrierOptions.ofDefaults());
        debugger.resumeProgram();

        assertThatThrownBy(() -> barrier.awaitArrival(Duration.ofSeconds(3))).isInstanceOf(BarrierTimeoutException.class);
        assertThat(barrier.state()).isEqualTo(BarrierState.EXPIRED);
        assertThat(a.isAlive()).isTrue();
    }

    @Test
    void detachingResumesAWhollySuspendedProgramAndTheReleaseSaysDetach(LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnTwoRecords(kafka, ns, HoldMode.PROCESS, Duration.ofSeconds(60));
        a.barrier().awaitArrival(Duration.ofSeconds(60));

        a.debugger().close(); // the controller goes away while the whole VM is suspended

        a.program().awaitOutput("commit accepted", Duration.ofSeconds(20));
        assertThat(moves.get(moves.size() - 1).by()).isEqualTo("detach");
    }

    @Test
    void theSafetyHoldTimeoutReleasesAHeldProgramOnItsOwnAndSaysHowLongItHeld(LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnTwoRecords(kafka, ns, HoldMode.THREAD, Duration.ofSeconds(2));
        Barrier barrier = a.barrier();
        barrier.awaitArrival(Duration.ofSeconds(60));

        CallOutcome outcome = barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow(); // nobody calls release()

        assertThat(outcome.verdict() == CallOutcome.Verdict.ACCEPTED).as("no rebalance happened: the commit goes through").isTrue();
        BarrierTransition last = moves.stream().filter(m -> m.to() == BarrierState.RELEASED).findFirst().orElseThrow();
        assertThat(last.by()).isEqualTo("hold-timeout");
        assertThat(last.heldMillis()).isBetween(1900L, 15_000L);
        a.program().awaitOutput("commit accepted", Duration.ofSeconds(20));
    }

    @Test
    void aHeldProgramThatDiesReleasesItsBarrierAsProgramExit(LocalKafka kafka, LabNamespace ns) throws Exception {
        Armed a = armedOnTwoRecords(kafka, ns, HoldMode.THREAD, Duration.ofSeconds(120));
        Barrier barrier = a.barrier();
        barrier.awaitArrival(Duration.ofSeconds(60));

        a.program().kill(); // SIGKILL while held

        long deadline = System.nanoTime() + 30_000_000_000L;
        while (barrier.state() == BarrierState.HELD && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(barrier.state()).isEqualTo(BarrierState.RELEASED);
        assertThat(moves.get(moves.size() - 1).by()).isEqualTo("program-exit");
        assertThat(barrier.awaitOutcome(Duration.ofSeconds(1))).as("a dead program's call has no outcome").isEmpty();
    }

    @Test
    void aControllerKilledWhileHoldingLeavesTheProgramRunning(LocalKafka kafka, LabNamespace ns) throws Exception {
        ChildProcess a = launchA(kafka, ns, 2);
        ChildProcess controller = plain(ChildProcess.java(ChildProcess.shortLived("-Xmx128m"), HoldingControllerMain.class.getName(),
                Integer.toString(a.debugPort().orElseThrow())), "controller");
        controller.awaitOutput("held", Duration.ofSeconds(60));
        Thread.sleep(1000);
        assertThat(Files.readString(dir.resolve("A.out"))).as("held: no commit while the controller lives").doesNotContain("commit accepted");

        controller.kill(); // SIGKILL: no close(), no detach — only the dropped JDWP connection

        a.awaitOutput("commit accepted", Duration.ofSeconds(20));
        assertThat(a.isAlive()).isTrue();
    }

    @Test
    void theJdbcCommitPointHoldsTheProgramBeforeItsTransactionCommitsInWhateverDriverItUses(LocalKafka kafka, LabNamespace ns) throws Exception {
        ChildProcess a = launchA(kafka, ns, 2, "tx");
        DebuggerBarrier debugger = attach(a);
        Barrier barrier = debugger.arm("db-commit", MethodPoint.jdbcCommit(), HoldMode.THREAD, moves::add, BarrierOptions.ofDefaults());
        debugger.resumeProgram();

        Arrival arrival = barrier.awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.stack().get(0)).as("the interface point is held in the driver's class").startsWith("org.sqlite.").contains(".commit");
        assertThat(arrival.stack()).anyMatch(f -> f.startsWith(CommitLoopMain.class.getName() + ".main"))
                .anyMatch(f -> f.startsWith(CommitLoopMain.class.getName() + ".lambda$main"))
                .as("the JVM's generated lambda classes are left out").noneMatch(f -> f.contains("$$Lambda"));
        assertThat(Files.readString(dir.resolve("A.out"))).contains("calling commit of 0@0").doesNotContain("calling commitSync");
        assertThat(CommitLoopMain.effects(dir.resolve("target.db"), "A")).as("its transaction has not committed").isZero();

        barrier.release();

        assertThat(barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow().verdict() == CallOutcome.Verdict.ACCEPTED).isTrue();
        assertThat(CommitLoopMain.awaitEffects(dir.resolve("target.db"), "A", 2)).isEqualTo(2);
    }

    /**
     * An interface point holds a method its implementation inherits from a superclass that does not implement the interface:
     * sqlite-jdbc's {@code PreparedStatement#executeUpdate}, the commit of an insert in autocommit mode (it was never held),
     * at its entry (the insert not run) and at its return (the insert committed). Its plain {@code Statement}s, which share
     * that superclass, are not held.
     */
    @ParameterizedTest(name = "on return: {0}")
    @ValueSource(booleans = {false, true})
    void anInterfacePointHoldsAMethodItsImplementationInheritsFromASuperclass(boolean onReturn, LocalKafka kafka, LabNamespace ns) throws Exception {
        ChildProcess a = launchA(kafka, ns, 2);
        DebuggerBarrier debugger = attach(a);
        MethodPoint insert = MethodPoint.parse("java.sql.PreparedStatement#executeUpdate");
        Barrier barrier = debugger.arm("db-commit", onReturn ? insert.onReturn() : insert, HoldMode.THREAD, moves::add, BarrierOptions.ofDefaults());
        debugger.resumeProgram();

        Arrival arrival = barrier.awaitArrival(Duration.ofSeconds(60));

        assertThat(arrival.stack().get(0)).as("held in the driver's class").startsWith("org.sqlite.").contains(".executeUpdate");
        assertThat(CommitLoopMain.effects(dir.resolve("target.db"), "A")).as("its insert has run only when held at its return")
                .isEqualTo(onReturn ? 1 : 0);

        barrier.release();

        assertThat(CommitLoopMain.awaitEffects(dir.resolve("target.db"), "A", 2)).isEqualTo(2);
    }

    @Test
    void anOnReturnPointHoldsTheProgramAfterItsOffsetCommitWasStoredBeforeItSeesTheAnswer(LocalKafka kafka, LabNamespace ns) throws Exception {
        ChildProcess a = launchA(kafka, ns, 2);
        DebuggerBarrier debugger = attach(a);
        Barrier barrier = debugger.arm("after-offset-commit", MethodPoint.kafkaCommitSync().onReturn(), HoldMode.THREAD, moves::add,
                BarrierOptions.ofDefaults());
        debugger.resumeProgram();

        // watching method returns slows the held JVM down: alone it arrives in about 30 s, beside two other test forks it took over 60
        Arrival arrival = barrier.awaitArrival(Duration.ofSeconds(150));

        assertThat(arrival.context()).containsEntry("edge", "returned normally");
        assertThat(arrival.stack().get(0)).startsWith("org.apache.kafka.clients.consumer.KafkaConsumer.commitSync");
        assertThat(Files.readString(dir.resolve("A.out"))).contains("calling commitSync 0@1").doesNotContain("commit accepted");
        try (KafkaOps ops = KafkaOps.connect(kafka.bootstrapServers(), Duration.ofSeconds(10))) {
            assertThat(ops.describe(ns.group()).partitions()).as("the broker stored the offset already")
                    .anySatisfy(p -> assertThat(p.committed()).isEqualTo(1));
        }

        barrier.release();

        assertThat(barrier.awaitOutcome(Duration.ofSeconds(30)).orElseThrow().verdict() == CallOutcome.Verdict.ACCEPTED).isTrue();
        a.awaitOutput("commit accepted", Duration.ofSeconds(20));
    }

    @Test
    void aMethodPointIsParsedFromClassHashMethodAndBadTextIsNamed() {
        assertThat(MethodPoint.parse("org.postgresql.jdbc.PgConnection#commit")).isEqualTo(new MethodPoint("org.postgresql.jdbc.PgConnection", "commit"));
        assertThat(MethodPoint.kafkaCommitSync().onReturn().toString()).endsWith("#commitSync (on return)");
        for (String bad : new String[] {"commit", "PgConnection#", "#commit", "a.B#c#d", "a b.C#commit"}) {
            assertThatThrownBy(() -> MethodPoint.parse(bad)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + bad + "'");
        }
    }
}
