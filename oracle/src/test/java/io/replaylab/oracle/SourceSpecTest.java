package io.replaylab.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

class SourceSpecTest {
    @Test
    void aTopicIsReadAsReferencePaymentsWithTheDefaultTimeoutAndEachDerivedSpecChangesOnlyItsOwnPart() {
        SourceSpec s = SourceSpec.topic("127.0.0.1:9092", "pay");
        assertThat(s).isEqualTo(new SourceSpec("127.0.0.1:9092", "pay", null, RecordParsers.paymentJson(), SourceSpec.DEFAULT_TIMEOUT, io.replaylab.kafka.ClientProperties.none()));
        Cut cut = new Cut("pay", Instant.now(), Map.of(0, 3L));
        RecordParser other = RecordParser.ofText((k, v) -> RecordParser.Parsed.of(k, 1));
        assertThat(s.upTo(cut)).isEqualTo(new SourceSpec("127.0.0.1:9092", "pay", cut, RecordParsers.paymentJson(), SourceSpec.DEFAULT_TIMEOUT, io.replaylab.kafka.ClientProperties.none()));
        assertThat(s.parser(other).parser()).isSameAs(other);
        assertThat(s.timeout(Duration.ofSeconds(3)).timeout()).isEqualTo(Duration.ofSeconds(3));
        io.replaylab.kafka.ClientProperties sasl = io.replaylab.kafka.ClientProperties.none().with("security.protocol", "SASL_PLAINTEXT");
        assertThat(s.client(sasl).upTo(cut).parser(other).timeout(Duration.ofSeconds(3)).client()).as("kept by every other change").isEqualTo(sasl);
        assertThatThrownBy(() -> s.timeout(Duration.ZERO)).hasMessage("the source timeout must be positive, was PT0S");
        assertThatThrownBy(() -> s.timeout(Duration.ofSeconds(-1))).hasMessage("the source timeout must be positive, was PT-1S");
    }

    @Test
    void aParserOfTextGetsTheRecordsBytesAsUtf8AndAMalformedRecordKeepsItsReason() {
        RecordParser echo = RecordParser.ofText((k, v) -> v == null ? RecordParser.Parsed.malformed("no value (key " + k + ")") : RecordParser.Parsed.of(k + ":" + v, 7));
        assertThat(echo.parse("zä".getBytes(StandardCharsets.UTF_8), "€".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(RecordParser.Parsed.of("zä:€", 7));
        RecordParser.Parsed none = echo.parse((byte[]) null, null);
        assertThat(none.ok()).isFalse();
        assertThat(none.malformedReason()).isEqualTo("no value (key null)");
        assertThat(RecordParser.Parsed.of("a", 1).ok()).isTrue();
    }
}
