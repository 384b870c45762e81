package io.replaylab.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

class PayloadJsonTest {

    @Test
    void everyPayloadTypeHasASampleAndRoundTripsThroughJsonAsAnEvent() throws Exception {
        List<Payload> samples = SampleRuns.everyPayload();
        Set<Class<?>> covered = samples.stream().map(Object::getClass).collect(Collectors.toSet());
        // the extension point and the reader's fallback for kinds it does not know have a test of their own (PayloadExtensionTest)
        assertThat(covered).containsExactlyInAnyOrderElementsOf(Payload.kinds()).hasSize(5);

        for (Payload p : samples) {
            Event e = new Event(3, Instant.parse("2026-11-29T12:00:00.123Z"), 42, Source.of("A", 7, "main"), p);
            String json = Json.mapper().writeValueAsString(e);
            assertThat(json).contains("\"type\":\"" + p.type() + "\"");
            assertThat(Json.mapper().readValue(json, Event.class)).isEqualTo(e);
        }
    }

    @Test
    void typeNamesAreKebabCaseOfTheRecordName() {
        assertThat(new Payload.ProcessStarted("A", 1, List.of()).type()).isEqualTo("process-started");
        assertThat(new SampleLab.Resumed("p", 1).type()).as("an extension's too").isEqualTo("resumed");
    }
}
