package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TargetSpecTest {
    @Test
    void credentialsLeaveTheUrlAndThePasswordIsNeverShown() {
        TargetSpec t = TargetSpec.jdbc("jdbc:postgresql://localhost:5432/lab?ssl=false&user=lab&password=p%26w%3Dx&ApplicationName=a", "g1");

        assertThat(t.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/lab?ssl=false&ApplicationName=a");
        assertThat(t.user()).isEqualTo("lab");
        assertThat(t.password()).as("URL-decoded").isEqualTo("p&w=x");
        assertThat(t.toString()).contains("as lab (password given)").doesNotContain("p&w=x").doesNotContain("p%26w");
        assertThat(TargetSpec.jdbc("jdbc:postgresql://h/lab?password=only", "g1").jdbcUrl()).isEqualTo("jdbc:postgresql://h/lab");
        assertThat(TargetSpec.jdbc("jdbc:sqlite:/tmp/x.db", "g1").jdbcUrl()).isEqualTo("jdbc:sqlite:/tmp/x.db");
    }

    @Test
    void aPasswordLeftInAUrlIsMaskedWhereverTheUrlIsShown() {
        assertThat(new TargetSpec("jdbc:postgresql://h/lab?user=u&password=secret", "n", "SELECT 1").displayUrl())
                .isEqualTo("jdbc:postgresql://h/lab?user=u&password=***");
        assertThat(new TargetSpec("jdbc:mysql://u:secret@h/lab", "n", "SELECT 1").toString()).doesNotContain("secret").contains("u:***@h");
        assertThatThrownBy(() -> new TargetSpec("postgres://u:secret@h/lab", "n", "SELECT 1"))
                .hasMessageContaining("a target is a JDBC URL").satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
    }
}
