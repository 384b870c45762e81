package io.replaylab.harness.subject;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A payment as the reference consumer reads it; {@link #parse} rejects anything else with a reason. */
record Payment(String id, String account, long amount) {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Thrown for a record the consumer must quarantine. */
    static final class Malformed extends Exception {
        Malformed(String reason) {
            super(reason, null, false, false);
        }
    }

    static Payment parse(String value) throws Malformed {
        if (value == null) {
            throw new Malformed("null value");
        }
        JsonNode n;
        try {
            n = MAPPER.readTree(value);
        } catch (JsonProcessingException e) {
            throw new Malformed("not JSON: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new Malformed("not a JSON object");
        }
        JsonNode id = n.get("id");
        if (id == null || !id.isTextual() || id.asText().isBlank()) {
            throw new Malformed("missing id");
        }
        JsonNode account = n.get("account");
        if (account == null || !account.isTextual()) {
            throw new Malformed("missing account");
        }
        JsonNode amount = n.get("amount");
        if (amount == null || !amount.isIntegralNumber() || !amount.canConvertToLong()) {
            throw new Malformed("non-integer amount: " + amount);
        }
        return new Payment(id.asText(), account.asText(), amount.asLong());
    }

    /** The record's message id for a log line; null for a record without one (malformed). */
    static String idOf(String value) {
        try {
            return parse(value).id();
        } catch (Malformed e) {
            return null;
        }
    }
}
