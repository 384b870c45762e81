package io.replaylab.oracle;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/** The parsers the oracle ships. */
public final class RecordParsers {
    private static final JsonFactory JSON = new JsonFactory();

    private RecordParsers() {
    }

    /**
     * The reference payload {@code {"id": "...", "amount": <integer>, ...}}, read with a streaming
     * parser (no tree per record). A fractional or textual amount is malformed: amounts are exact.
     */
    public static RecordParser paymentJson() {
        return (key, value) -> {
            if (value == null) {
                return RecordParser.Parsed.malformed("null value");
            }
            String id = null;
            Long amount = null;
            String badAmount = null;
            try (JsonParser p = JSON.createParser(value)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    return RecordParser.Parsed.malformed("not a JSON object");
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken t = p.nextToken();
                    if ("id".equals(field) && t == JsonToken.VALUE_STRING) {
                        id = p.getText();
                    } else if ("amount".equals(field)) {
                        if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                            amount = p.getLongValue();
                        } else {
                            badAmount = p.getText();
                        }
                    } else {
                        p.skipChildren();
                    }
                }
            } catch (IOException e) {
                return RecordParser.Parsed.malformed("not JSON");
            }
            if (id == null || id.isBlank()) {
                return RecordParser.Parsed.malformed("missing id");
            }
            if (amount == null) {
                return RecordParser.Parsed.malformed("non-integer amount: " + badAmount);
            }
            return RecordParser.Parsed.of(id, amount);
        };
    }
}
