package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

class InboxProjectionTest {

    @Test
    void aWriteWhileAnotherConnectionHoldsTheSqliteWriteLockIsBusyAndASyntaxErrorIsNot(@TempDir Path dir) throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("t.db");
        try (Connection holder = DriverManager.getConnection(url); Connection other = DriverManager.getConnection(url)) {
            try (Statement s = holder.createStatement()) {
                s.execute("CREATE TABLE t (x INTEGER)");
                s.execute("BEGIN IMMEDIATE"); // the write lock, held
                s.execute("INSERT INTO t VALUES (1)");
            }
            try (Statement s = other.createStatement()) {
                s.execute("PRAGMA busy_timeout = 0");
                SQLException busy = catchThrowableOfType(() -> s.execute("INSERT INTO t VALUES (2)"), SQLException.class);
                assertThat(InboxProjection.isBusy(busy)).as(busy.getMessage()).isTrue();
                SQLException syntax = catchThrowableOfType(() -> s.execute("INSERT INTO nowhere VALUES (2)"), SQLException.class);
                assertThat(InboxProjection.isBusy(syntax)).as(syntax.getMessage()).isFalse();
            }
        }
    }

    @Test
    void aBusyTransactionIsTriedAgainAndAnyOtherFailureEndsItAtOnceNamingTheDatabase(@TempDir Path dir) {
        try (InboxProjection projection = new InboxProjection(dir.resolve("t.db").toString(), "ns", "test")) {
            AtomicInteger tries = new AtomicInteger();
            String done = projection.inTransaction(c -> {
                if (tries.incrementAndGet() < 3) {
                    throw new SQLiteException("[SQLITE_BUSY] The database file is locked", SQLiteErrorCode.SQLITE_BUSY);
                }
                return "done";
            });
            assertThat(done).isEqualTo("done");
            assertThat(tries).hasValue(3);

            tries.set(0);
            IllegalStateException failed = catchThrowableOfType(() -> projection.inTransaction(c -> {
                tries.incrementAndGet();
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO nowhere VALUES (1)");
                }
                return null;
            }), IllegalStateException.class);
            assertThat(failed).hasMessageStartingWith("the projection into SQLITE failed: ").hasMessageContaining("nowhere");
            assertThat(tries).hasValue(1);
        }
    }

    @Test
    void postgresSerializationFailuresAndDeadlocksAreBusyByTheirSqlState() {
        assertThat(InboxProjection.isBusy(new SQLException("could not serialize access", "40001"))).isTrue();
        assertThat(InboxProjection.isBusy(new SQLException("deadlock detected", "40P01"))).isTrue();
        assertThat(InboxProjection.isBusy(new SQLException("wrapped", "XX000", new SQLException("deadlock detected", "40P01")))).isTrue();
        assertThat(InboxProjection.isBusy(new SQLException("database is locked (only the text says so)", "23505"))).isFalse();
    }
}
