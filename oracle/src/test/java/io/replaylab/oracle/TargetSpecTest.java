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

    @Test
    void eachDerivedSpecChangesOnlyItsOwnPartAndAQueryWithANamespacePlaceholderNeedsANamespace() {
        TargetSpec t = TargetSpec.sqlite(java.nio.file.Path.of("rel.db"), "ns");
        assertThat(t.jdbcUrl()).isEqualTo("jdbc:sqlite:" + java.nio.file.Path.of("rel.db").toAbsolutePath());
        assertThat(t.query()).isEqualTo(TargetSpec.REFERENCE_QUERY);
        assertThat(t.isSqlite()).isTrue();
        assertThat(t.credentials("u", "p")).isEqualTo(new TargetSpec(t.jdbcUrl(), "ns", t.query(), "u", "p"));
        assertThat(t.credentials("u", "p").url("jdbc:postgresql://h/lab")).isEqualTo(new TargetSpec("jdbc:postgresql://h/lab", "ns", t.query(), "u", "p"));
        assertThat(t.url("jdbc:postgresql://h/lab").isSqlite()).isFalse();
        assertThat(t.namespace("other").namespace()).isEqualTo("other");
        assertThat(t.query("SELECT 1").query()).isEqualTo("SELECT 1");
        assertThat(TargetSpec.jdbc("jdbc:postgresql://h/lab", "ns")).isEqualTo(new TargetSpec("jdbc:postgresql://h/lab", "ns", TargetSpec.REFERENCE_QUERY));
        assertThat(TargetSpec.jdbc("jdbc:postgresql://h/lab?user=a&&ssl=true", "ns").jdbcUrl()).as("an empty parameter is dropped")
                .isEqualTo("jdbc:postgresql://h/lab?ssl=true");
        assertThat(t.usesNamespace()).isTrue();
        assertThat(TargetSpec.sqlite(java.nio.file.Path.of("rel.db"), null).query("SELECT message_id, amount FROM t WHERE ns = 'n1'").usesNamespace())
                .as("a spec built without a namespace takes a user's query that needs none").isFalse();
        assertThat(t.query("SELECT 1").namespace(null).namespace()).as("a query without the placeholder needs none").isNull();
        assertThat(t.amountScale(2).amountScale()).isEqualTo(2);
        assertThat(t.amountScale(2).namespace("x").amountScale()).as("kept by every derived spec").isEqualTo(2);
        assertThatThrownBy(() -> t.amountScale(19)).hasMessage("the amount scale must be 0..18 decimal digits, was 19");
    }

    @Test
    void aQuotedNamespacePlaceholderIsRefusedBecauseItWouldBeTheLiteralQuestionMark() {
        assertThatThrownBy(() -> TargetSpec.sqlite(java.nio.file.Path.of("x.db"), "n").query("SELECT message_id, amount FROM t WHERE ns = '{namespace}'"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("quotes {namespace}").hasMessageContaining("without quotes");
    }
}
