package io.replaylab.oracle;

import java.util.Objects;

import com.fasterxml.jackson.core.JsonPointer;

/**
 * Where a source record keeps its identity and its amount, for any message shape: a user's own
 * producer writes {@code key = paymentId, {"paymentId": "...", "amountCents": 1250}} and the oracle
 * reads it with {@code SourceMapping.of("key", "json:/amountCents", 0)}.
 *
 * <p>A field is one of {@code key} (the record's key as UTF-8 text), {@code json:/pointer} (an RFC 6901
 * pointer into the value, read as JSON: {@code json:/payment/id}, {@code json:/items/0/id},
 * {@code ~1} for a {@code /} in a name) or {@code header:NAME} (the last header of that name, as UTF-8
 * text). An identity that is a JSON number is its canonical decimal text. An amount is exact: a JSON
 * integer or a string of digits; with {@code amountScale} N &gt; 0 a decimal ({@code 12.50} or
 * {@code "12.50"}) is turned into minor units ({@code 1250}) exactly, and one with more than N decimal
 * digits is malformed, never rounded. The same scale applies to the target's amounts
 * ({@link TargetSpec#amountScale(int)}).
 *
 * @param id where the identity is
 * @param amount where the amount is
 * @param amountScale decimal digits of the amount turned into minor units (0..18)
 */
public record SourceMapping(Field id, Field amount, int amountScale) {
    /** The reference payload's mapping: {@code json:/id}, {@code json:/amount}, integers. */
    public static final SourceMapping REFERENCE = new SourceMapping(Field.parse("json:/id"), Field.parse("json:/amount"), 0);

    public SourceMapping {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(amount, "amount");
        if (amountScale < 0 || amountScale > 18) {
            throw new IllegalArgumentException("the amount scale must be 0..18 decimal digits, was " + amountScale);
        }
    }

    /** From the textual forms, e.g. {@code of("key", "json:/amountCents", 0)}; a bad form is an IllegalArgumentException naming it. */
    public static SourceMapping of(String id, String amount, int amountScale) {
        return new SourceMapping(Field.parse(id), Field.parse(amount), amountScale);
    }

    /** Whether this is the reference payload's mapping (read by {@link RecordParsers#paymentJson()}'s fast reader). */
    public boolean isReference() {
        return equals(REFERENCE);
    }

    /** The parser that reads records with this mapping. */
    public RecordParser parser() {
        return isReference() ? RecordParsers.paymentJson() : new MappedParser(this);
    }

    /** A record's key, value and headers as stored (bytes; a null key or value is none). */
    public record Raw(byte[] key, byte[] value, org.apache.kafka.common.header.Headers headers) {
        public Raw {
            headers = headers == null ? new org.apache.kafka.common.header.internals.RecordHeaders() : headers;
        }

        /** Its headers as a parser reads them. */
        public RecordParser.Headers lastValues() {
            return name -> {
                org.apache.kafka.common.header.Header h = headers.lastHeader(name);
                return h == null ? null : h.value();
            };
        }
    }

    /**
     * The same record under identity {@code newId}: written where this mapping reads the identity (the key, the JSON value's
     * scalar at the id's pointer, as a string, or the id's header), and wherever else the record carries its old identity as
     * text (a key, a JSON string, a header equal to it: a consumer may read it from another place than the mapping does);
     * everything else as it was. What the lab uses to copy a user's record into one that no committed record shares an
     * identity with.
     *
     * @throws IllegalArgumentException when the record has no identity this mapping reads (no key, a value that is not JSON
     *                                  or holds no scalar at the pointer, no such header)
     */
    public Raw withId(Raw r, String newId) {
        RecordParser.Parsed old = parser().parse(r.key(), r.value(), r.lastValues());
        if (!old.ok()) {
            throw new IllegalArgumentException("the record has no identity to replace: " + old.malformedReason());
        }
        byte[] idBytes = newId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] oldBytes = old.id().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] key = id instanceof Field.Key || java.util.Arrays.equals(r.key(), oldBytes) ? idBytes : r.key();
        org.apache.kafka.common.header.Headers headers = new org.apache.kafka.common.header.internals.RecordHeaders();
        for (org.apache.kafka.common.header.Header h : r.headers()) {
            boolean replaced = id instanceof Field.Header named && named.name().equals(h.key()) || java.util.Arrays.equals(h.value(), oldBytes);
            headers.add(h.key(), replaced ? idBytes : h.value());
        }
        byte[] value = r.value();
        JsonPointer at = id instanceof Field.Json j ? j.pointer() : null;
        if (value != null && (at != null || r.value().length > 0 && (r.value()[0] == '{' || r.value()[0] == '['))) {
            value = rewritten(value, at, old.id(), newId);
        }
        return new Raw(key, value, headers);
    }

    /** A JSON value with the scalar at {@code at} and every string equal to {@code oldId} written as {@code newId}; unchanged when it is not JSON and {@code at} is null. */
    private static byte[] rewritten(byte[] value, JsonPointer at, String oldId, String newId) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(value.length + newId.length());
        com.fasterxml.jackson.core.JsonFactory json = new com.fasterxml.jackson.core.JsonFactory();
        try (com.fasterxml.jackson.core.JsonParser p = json.createParser(value); com.fasterxml.jackson.core.JsonGenerator g = json.createGenerator(out)) {
            while (p.nextToken() != null) {
                com.fasterxml.jackson.core.JsonToken t = p.currentToken();
                boolean there = at != null && t.isScalarValue() && p.getParsingContext().pathAsPointer().equals(at);
                if (there || t == com.fasterxml.jackson.core.JsonToken.VALUE_STRING && p.getText().equals(oldId)) {
                    g.writeString(newId);
                } else {
                    g.copyCurrentEvent(p);
                }
            }
        } catch (java.io.IOException e) {
            if (at != null) {
                throw new IllegalArgumentException("the record's value is not JSON: " + e.getMessage(), e);
            }
            return value; // a value that only looked like JSON: the identity is elsewhere
        }
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return "id " + id + ", amount " + amount + (amountScale == 0 ? "" : " (scale " + amountScale + ")");
    }

    /** One place in a record. */
    public sealed interface Field {
        /**
         * {@code key}, {@code json:/pointer} or {@code header:NAME}.
         *
         * @throws IllegalArgumentException naming the text and the forms it may take
         */
        static Field parse(String spec) {
            if (spec == null || spec.isBlank()) {
                throw new IllegalArgumentException("a source field is one of key, json:/pointer, header:NAME; it was empty");
            }
            if (spec.equals("key")) {
                return new Key();
            }
            if (spec.startsWith("json:")) {
                String pointer = spec.substring("json:".length());
                if (!pointer.startsWith("/")) {
                    throw new IllegalArgumentException("'" + spec + "': a JSON pointer starts with '/' (RFC 6901), e.g. json:/payment/id");
                }
                try {
                    return new Json(JsonPointer.compile(pointer));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("'" + spec + "' is not a JSON pointer (RFC 6901): " + e.getMessage(), e);
                }
            }
            if (spec.startsWith("header:")) {
                String name = spec.substring("header:".length());
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("'" + spec + "' names no header: header:NAME");
                }
                return new Header(name);
            }
            throw new IllegalArgumentException("'" + spec + "' is not a source field: one of key, json:/pointer (e.g. json:/paymentId), header:NAME");
        }

        /** The record's key, as UTF-8 text. */
        record Key() implements Field {
            @Override
            public String toString() {
                return "key";
            }
        }

        /** A value inside the record's value, read as JSON. */
        record Json(JsonPointer pointer) implements Field {
            public Json {
                Objects.requireNonNull(pointer, "pointer");
                if (pointer.matches()) {
                    throw new IllegalArgumentException("json: needs a pointer to a field (e.g. json:/id), not the whole value");
                }
            }

            @Override
            public String toString() {
                return "json:" + pointer;
            }
        }

        /** The last header of this name, as UTF-8 text. */
        record Header(String name) implements Field {
            public Header {
                Objects.requireNonNull(name, "name");
            }

            @Override
            public String toString() {
                return "header:" + name;
            }
        }
    }
}
