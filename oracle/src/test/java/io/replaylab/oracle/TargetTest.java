package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The target's pool on a real SQLite file: read-only, never created, views that share it, a clear end. */
class TargetTest {
    @TempDir
    Path dir;

    private Path database() throws Exception {
        Path file = dir.resolve("t.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE inbox (x INTEGER)");
            s.execute("INSERT INTO inbox VALUES (42)");
        }
        return file;
    }

    @Test
    void aSqliteFileThatIsNotThereIsRefusedAndNeverCreated() {
        Path missing = dir.resolve("nope.db");
        assertThatThrownBy(() -> Target.open(TargetSpec.sqlite(missing, "ns"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("target database " + missing.toAbsolutePath() + " does not exist");
        assertThat(missing).doesNotExist();
    }

    @Test
    void theTargetIsReadOnlyItsViewsShareThePoolAndOnlyTheOpenerClosesIt() throws Exception {
        Path file = database();
        Target t = Target.open(TargetSpec.sqlite(file, "ns").credentials("reader", null));
        Target view = t.namespace("other").query("SELECT x FROM inbox");
        assertThat(t.spec().namespace()).isEqualTo("ns");
        assertThat(view.spec().namespace()).isEqualTo("other");
        assertThat(view.spec().query()).isEqualTo("SELECT x FROM inbox");
        assertThat(view.spec().user()).isEqualTo("reader");
        assertThat(view.toString()).isEqualTo("Target[" + view.spec() + "]").contains("jdbc:sqlite:" + file.toAbsolutePath());

        try (Connection c = t.connection(); Statement s = c.createStatement()) {
            assertThatThrownBy(() -> s.execute("INSERT INTO inbox VALUES (1)")).as("the oracle never writes the target").hasMessageContaining("readonly");
        }
        view.close(); // a view closes nothing
        try (Connection c = view.connection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(view.spec().query())) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).isEqualTo(42);
        }
        t.close();
        assertThatThrownBy(view::connection).isInstanceOf(IllegalStateException.class)
                .hasMessage("the target jdbc:sqlite:" + file.toAbsolutePath() + " was closed");
    }
}
