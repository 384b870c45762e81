package io.replaylab.evidence;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one JSON mapping of evidence (journal lines and evidence.json). Payload kinds are found from
 * the sealed {@link Payload}'s permitted records, so a new record needs no registration.
 */
public final class Json {
    private static final ObjectMapper MAPPER = create();

    private Json() {
    }

    /** A mapper that reads and writes every evidence value (shared, thread-safe). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    private static ObjectMapper create() {
        JsonMapper m = JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .addMixIn(Payload.class, PayloadMixin.class)
                .addMixIn(FaultConfirmation.class, FaultConfirmationMixin.class)
                .build();
        for (Class<?> c : Payload.class.getPermittedSubclasses()) {
            m.registerSubtypes(new NamedType(c, Payload.typeOf(c)));
        }
        return m;
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
    interface PayloadMixin {
    }

    abstract static class FaultConfirmationMixin {
        @JsonCreator
        FaultConfirmationMixin(@JsonProperty("description") String description, @JsonProperty("eventSeq") long eventSeq,
                @JsonProperty("eventType") String eventType) {
        }

        @JsonProperty("description")
        abstract String description();

        @JsonProperty("eventSeq")
        abstract long eventSeq();

        @JsonProperty("eventType")
        abstract String eventType();
    }
}
