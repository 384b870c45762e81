package io.replaylab.barrier.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import io.replaylab.barrier.Barrier;
import io.replaylab.barrier.BarrierListener;
import io.replaylab.barrier.BarrierOptions;
import io.replaylab.barrier.BarrierState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

class BarrierDataSourceTest {
    @TempDir
    Path dir;

    private long rows() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"));
             ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM effects")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void connectionsStopBeforeAndAfterCommitOnARealSqliteFile() throws Exception {
        SQLiteDataSource sqlite = new SQLiteDataSource();
        sqlite.setUrl("jdbc:sqlite:" + dir.resolve("t.db"));
        try (Connection c = sqlite.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE effects (id TEXT)");
        }
        Barrier before = Barrier.arm("before-db-commit", BarrierListener.NONE, BarrierOptions.ofDefaults());
        Barrier after = Barrier.arm("after-db-commit", BarrierListener.NONE, BarrierOptions.ofDefaults());
        DataSource ds = BarrierDataSource.wrap(sqlite, before, after);

        CompletableFuture<Void> tx = CompletableFuture.runAsync(() -> {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.executeUpdate("INSERT INTO effects VALUES ('m-1')");
                }
                c.commit();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        before.awaitArrival(Duration.ofSeconds(10));
        assertThat(rows()).as("not committed yet").isZero();
        before.release();
        after.awaitArrival(Duration.ofSeconds(10));
        assertThat(rows()).as("committed, and held right after").isEqualTo(1);
        assertThat(tx).isNotDone();
        after.release();
        tx.get();
        assertThat(before.state()).isEqualTo(BarrierState.RELEASED);
    }
}
