package io.replaylab.harness.subject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
    void postgresSerializationFailuresAndDeadlocksAreBusyByTheirSqlState() {
        assertThat(InboxProjection.isBusy(new SQLException("could not serialize access", "40001"))).isTrue();
        assertThat(InboxProjection.isBusy(new SQLException("deadlock detected", "40P01"))).isTrue();
        assertThat(InboxProjection.isBusy(new SQLException("wrapped", "XX000", new SQLException("deadlock detected", "40P01")))).isTrue();
        assertThat(InboxProjection.isBusy(new SQLException("database is locked (only the text says so)", "23505"))).isFalse();
    }
}
