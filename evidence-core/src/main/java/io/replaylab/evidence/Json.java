package io.replaylab.evidence;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one JSON mapping of evidence (journal lines and evidence.json). evidence-core's payload kinds
 * are found from the sealed {@link Payload}'s permitted records; every other module's own (replay-lab's included) from its
 * {@link PayloadTypes} services.
 */
public final class Json {
    private static final ObjectMapper MAPPER = create();

    private Json() {
    }

    /**
     * The mapper of evidence values (shared, thread-safe): for evidence-core and the protocol files
     * other modules keep as evidence (kafka-ops' saved plans). It is not a general JSON tool: to
     * write a value into a protocol use {@link Evidence#writeJson}, and read other JSON with a
     * mapper of your own.
     */
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
        for (Class<?> c : Payload.kinds()) {
            m.registerSubtypes(new NamedType(c, Payload.typeOf(c)));
        }
        for (PayloadTypes lab : ServiceLoader.load(PayloadTypes.class, Json.class.getClassLoader())) {
            for (Class<? extends Payload.Extension> c : lab.types()) {
                m.registerSubtypes(new NamedType(c, Payload.typeOf(c)));
            }
        }
        m.registerModule(new SimpleModule("unregistered-payloads")
                .addSerializer(Payload.Unregistered.class, new UnregisteredWriter())
                .addDeserializer(Payload.Unregistered.class, new UnregisteredReader()));
        return m;
    }

    // a kind nobody registered reads as Unregistered (the type id stays visible to it) and is written back as it was read
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type", visible = true, defaultImpl = Payload.Unregistered.class)
    interface PayloadMixin {
    }

    private static final class UnregisteredReader extends StdDeserializer<Payload.Unregistered> {
        UnregisteredReader() {
            super(Payload.Unregistered.class);
        }

        @Override
        public Payload.Unregistered deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
            Map<String, Object> fields = new LinkedHashMap<>(p.readValueAs(new TypeReference<Map<String, Object>>() { }));
            Object type = fields.remove("type");
            return new Payload.Unregistered(type == null ? "unknown" : type.toString(), fields);
        }
    }

    private static final class UnregisteredWriter extends StdSerializer<Payload.Unregistered> {
        UnregisteredWriter() {
            super(Payload.Unregistered.class);
        }

        @Override
        public void serialize(Payload.Unregistered u, JsonGenerator g, SerializerProvider provider) throws IOException {
            writeFields(u, g, provider);
        }

        @Override
        public void serializeWithType(Payload.Unregistered u, JsonGenerator g, SerializerProvider provider, TypeSerializer ts) throws IOException {
            writeFields(u, g, provider); // its own type, not "unregistered"
        }

        private static void writeFields(Payload.Unregistered u, JsonGenerator g, SerializerProvider provider) throws IOException {
            g.writeStartObject();
            g.writeStringField("type", u.type());
            for (Map.Entry<String, Object> f : u.fields().entrySet()) {
                g.writeFieldName(f.getKey());
                provider.defaultSerializeValue(f.getValue(), g);
            }
            g.writeEndObject();
        }
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
