package io.replaylab.barrier.pg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;

import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database faults and the witness of the PostgreSQL proxy, in front of a real server with pgjdbc (the extended
 * protocol, prepared statements and all) as the client: what the client is told, and what the server really did.
 */
class DbFaultTest {
    @RegisterExtension
    final ProxiedDatabase db = new ProxiedDatabase("id text PRIMARY KEY");

    /** A session through the proxy named {@code app}; {@code prepareThreshold} 1: pgjdbc prepares every statement on the server at once. */
    private Connection session(String app) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", LocalPostgres.USER);
        p.setProperty("password", LocalPostgres.PASSWORD);
        p.setProperty("ApplicationName", app);
        p.setProperty("prepareThreshold", "1");
        Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + db.proxy().port() + "/" + db.database(), p);
        c.setAutoCommit(false);
        return c;
    }

    /** Inserts {@code ids} in one transaction and commits. */
    private static void insert(Connection c, String... ids) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO effect VALUES (?)")) {
            for (String id : ids) {
                s.setString(1, id);
                s.executeUpdate();
            }
        }
        c.commit();
    }

    @Test
    void aLostAnswerLeavesTheTransactionCommittedAndTheClientWithABrokenConnection() throws Exception {
        try (Connection c = session("a")) {
            insert(c, "warm");
            ArmedDbFault f = db.proxy().inject(DbFault.parse("commit:lost-answer").at("a"));
            assertThatThrownBy(() -> insert(c, "x1")).isInstanceOf(SQLException.class).satisfies(e ->
                    assertThat(((SQLException) e).getSQLState()).startsWith("08")); // a connection error: the outcome unknown to the client
            DbFaultFiring fired = f.awaitFiring(Duration.ofSeconds(5)).orElseThrow();
            assertThat(fired.done()).isEqualTo("the server committed; the answer was dropped and the connection closed");
            assertThat(fired.owner()).isEqualTo("a");
        }
        assertThat(db.ids()).as("durable all the same").containsExactly("warm", "x1");
        assertThat(db.proxy().witness().transactions()).filteredOn(t -> t.mentions(List.of("x1")).contains("x1"))
                .extracting(WitnessedTransaction::outcome).containsExactly(WitnessedTransaction.Outcome.COMMITTED);
    }

    @Test
    void aCommitErrorRollsTheTransactionBackAndTellsTheClientTheSqlStateTheSessionGoesOn() throws Exception {
        try (Connection c = session("a")) {
            ArmedDbFault f = db.proxy().inject(DbFault.parse("commit:error=40001").at("a"));
            assertThatThrownBy(() -> insert(c, "x1")).isInstanceOf(SQLException.class).satisfies(e -> {
                assertThat(((SQLException) e).getSQLState()).isEqualTo("40001");
                assertThat(e.getMessage()).contains("could not serialize access").contains("injected by replay-lab");
            });
            assertThat(f.firings()).singleElement().satisfies(x -> assertThat(x.statement()).isEqualTo("COMMIT"));
            insert(c, "x1"); // the retry, on the same session: the server's state is consistent with the client's
        }
        assertThat(db.ids()).containsExactly("x1");
        assertThat(db.proxy().witness().transactions()).filteredOn(t -> !t.mentions(List.of("x1")).isEmpty())
                .extracting(WitnessedTransaction::outcome, WitnessedTransaction::sqlState)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(WitnessedTransaction.Outcome.FAILED, "40001"),
                        org.assertj.core.groups.Tuple.tuple(WitnessedTransaction.Outcome.COMMITTED, ""));
    }

    @Test
    void aStatementErrorAbortsTheTransactionOnTheServerAndOnlyTheAimedSessionMeetsIt() throws Exception {
        try (Connection other = session("b"); Connection c = session("a")) {
            ArmedDbFault f = db.proxy().inject(DbFault.parse("statement:error=40P01").at("a"));
            insert(other, "b1", "b2"); // b's statements pass: the fault is a's
            assertThat(f.firings()).isEmpty();
            assertThatThrownBy(() -> insert(c, "x1", "x2")).isInstanceOf(SQLException.class).satisfies(e -> {
                assertThat(((SQLException) e).getSQLState()).isEqualTo("40P01");
                assertThat(e.getMessage()).contains("deadlock detected");
            });
            c.rollback();
            assertThat(f.firings()).singleElement().satisfies(x -> assertThat(x.statement()).isEqualTo("INSERT INTO effect VALUES ($1)"));
            insert(c, "x1", "x2");
        }
        assertThat(db.ids()).containsExactly("b1", "b2", "x1", "x2");
    }

    @Test
    void aTerminationAtTheCommitRollsTheTransactionBackAndTellsTheClientFatal() throws Exception {
        try (Connection c = session("a")) {
            ArmedDbFault f = db.proxy().inject(DbFault.parse("connection:terminate=57P01").at("a"));
            Instant before = Instant.now();
            assertThatThrownBy(() -> insert(c, "x1")).isInstanceOf(SQLException.class).satisfies(e ->
                    assertThat(((SQLException) e).getSQLState()).isEqualTo("57P01"));
            assertThat(f.awaitFiring(Duration.ofSeconds(5))).isPresent();
            assertThat(db.proxy().witness().of("a", before)).extracting(WitnessedTransaction::outcome)
                    .containsExactly(WitnessedTransaction.Outcome.ABANDONED);
        }
        assertThat(db.ids()).as("rolled back").isEmpty();
    }

    @Test
    void aFaultNamesWhatIsWrongWithItsSpec() {
        assertThat(DbFault.parse("statement:error=40P01").meaning()).isEqualTo("a statement of a session's transaction fails on the server with "
                + "SQLSTATE 40P01, aborting the transaction");
        assertThatThrownBy(() -> DbFault.parse("commit")).hasMessageStartingWith("a database fault is target:effect, e.g. commit:lost-answer; was 'commit'");
        assertThatThrownBy(() -> DbFault.parse("commit:error=4001")).hasMessage("'4001' is no SQLSTATE (five digits or capital letters, e.g. 40001)");
        assertThatThrownBy(() -> DbFault.parse("statement:lost-answer")).hasMessageStartingWith("no database fault statement:lost-answer: use commit:lost-answer");
        assertThatThrownBy(() -> DbFault.parse("row:error=40001")).hasMessageStartingWith("unknown database fault target 'row' in 'row:error=40001'");
        assertThatThrownBy(() -> DbFault.parse("commit:explode")).hasMessageStartingWith("unknown database fault effect 'explode'");
    }

    @Test
    void theWitnessNamesTheIdsEachTransactionWroteAndItsOwnerByClientPort() throws Exception {
        db.proxy().owners(port -> "instance-on-" + port);
        try (Connection c = session("app")) {
            insert(c, "id-1", "id-11");
        }
        WitnessedTransaction t = db.proxy().witness().transactions().stream().filter(x -> !x.mentions(List.of("id-1")).isEmpty()).findFirst().orElseThrow();
        assertThat(t.owner()).startsWith("instance-on-");
        assertThat(t.mentions(List.of("id-1", "id-11", "id-111", "id"))).containsExactly("id-1", "id-11");
        assertThat(t.statements()).contains("INSERT INTO effect VALUES ($1) $1=id-1");
    }

    @Test
    void aCommitFaultWaitsForACommitThatEndsATransactionAndAStatementFaultIsConfirmedByTheServersError() throws Exception {
        try (Connection c = session("a")) {
            ArmedDbFault commit = db.proxy().inject(DbFault.parse("commit:error=40001").at("a"));
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("COMMIT"); // no transaction: the server only warns, and nothing was at stake
            }
            assertThat(commit.firings()).as("not taken by a COMMIT with no transaction").isEmpty();
            commit.disarm();
            c.setAutoCommit(false);
            ArmedDbFault statement = db.proxy().inject(DbFault.parse("statement:error=40P01").at("a"));
            assertThatThrownBy(() -> insert(c, "x1", "x2")).isInstanceOf(SQLException.class);
            assertThat(statement.firings()).singleElement().satisfies(x -> assertThat(x.done())
                    .isEqualTo("a statement that raises SQLSTATE 40P01 ran in its place; the server answered SQLSTATE 40P01 and aborted the transaction"));
            c.rollback();
        }
    }

    @Test
    void aCommitHeldWhenItsClientDiesNeverReachesTheServerAndAHeldAnswerSeveredIsWitnessedCommitted() throws Exception {
        io.replaylab.barrier.Barrier before = db.proxy().arm("before", io.replaylab.barrier.PgPoint.beforeCommit(null), io.replaylab.barrier.HoldMode.THREAD,
                t -> { }, io.replaylab.barrier.BarrierOptions.ofDefaults());
        Connection dying = session("dying");
        java.util.concurrent.CompletableFuture<Void> commit = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                insert(dying, "never");
            } catch (SQLException expected) {
                // the connection is aborted while its COMMIT is held
            }
        });
        before.awaitArrival(Duration.ofSeconds(10));
        dying.abort(Runnable::run); // the client's socket closes, as a killed process's does
        Thread.sleep(200);
        before.release();
        commit.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(db.ids()).as("a dead client's COMMIT is dropped").doesNotContain("never");

        io.replaylab.barrier.Barrier after = db.proxy().arm("after", io.replaylab.barrier.PgPoint.afterCommit(null), io.replaylab.barrier.HoldMode.THREAD,
                t -> { }, io.replaylab.barrier.BarrierOptions.ofDefaults());
        Instant since = Instant.now();
        try (Connection c = session("killed")) {
            java.util.concurrent.CompletableFuture<Void> answered = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    insert(c, "durable");
                } catch (SQLException expected) {
                    // severed before the answer came
                }
            });
            after.awaitArrival(Duration.ofSeconds(10));
            assertThat(db.proxy().sever(after)).as("the held session is severed").isTrue();
            after.release();
            answered.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertThat(db.ids()).contains("durable");
        assertThat(db.proxy().witness().of("killed", since)).filteredOn(t -> !t.mentions(List.of("durable")).isEmpty())
                .extracting(WitnessedTransaction::outcome).containsExactly(WitnessedTransaction.Outcome.COMMITTED);
    }
}
