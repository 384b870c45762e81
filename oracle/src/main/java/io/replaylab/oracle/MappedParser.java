package io.replaylab.oracle;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonToken;

/**
 * Reads a record with a {@link SourceMapping}. JSON values are streamed once, descending only
 * into the members and elements the two pointers lead through (everything else is skipped, not
 * built), so a big payload costs one scan.
 */
final class MappedParser implements RecordParser {
    private static final JsonFactory JSON = new JsonFactory();
    /** A textual amount: digits, an optional sign and an optional fraction; no exponent, no spaces. */
    private static final Pattern DECIMAL_TEXT = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");

    private final SourceMapping mapping;
    private final JsonPointer[] pointers;

    MappedParser(SourceMapping mapping) {
        this.mapping = mapping;
        this.pointers = new JsonPointer[] {
            mapping.id() instanceof SourceMapping.Field.Json j ? j.pointer() : null,
            mapping.amount() instanceof SourceMapping.Field.Json j ? j.pointer() : null};
    }

    @Override
    public Parsed parse(byte[] key, byte[] value, Headers headers) {
        Leaf[] found = new Leaf[2];
        if (pointers[0] != null || pointers[1] != null) {
            if (value == null) {
                return Parsed.malformed("null value (the mapping reads " + (pointers[0] != null ? mapping.id() : mapping.amount()) + ")");
            }
            try (JsonParser p = JSON.createParser(value)) {
                if (p.nextToken() == null) {
                    return Parsed.malformed("empty value, not JSON");
                }
                walk(p, pointers.clone(), found);
                if (p.nextToken() != null) {
                    return Parsed.malformed("not JSON: more than one value");
                }
            } catch (IOException e) {
                return Parsed.malformed("not JSON: " + firstLine(e.getMessage()));
            }
        }
        Leaf id = leaf(mapping.id(), 0, found, key, headers);
        Leaf amount = leaf(mapping.amount(), 1, found, key, headers);
        if (id == null) {
            return Parsed.malformed("missing id at " + mapping.id());
        }
        if (amount == null) {
            return Parsed.malformed("missing amount at " + mapping.amount());
        }
        String idText = identity(id);
        if (idText == null) {
            return Parsed.malformed("id at " + mapping.id() + " is " + id.describe() + ", not a string or a number");
        }
        if (idText.isBlank()) {
            return Parsed.malformed("empty id at " + mapping.id());
        }
        String text = amount.token == JsonToken.VALUE_STRING || amount.token == null ? amount.text : null;
        if (amount.token == JsonToken.VALUE_NUMBER_INT || amount.token == JsonToken.VALUE_NUMBER_FLOAT) {
            text = amount.text;
        } else if (text == null) {
            return Parsed.malformed("amount at " + mapping.amount() + " is " + amount.describe() + ", not a number");
        } else if (!DECIMAL_TEXT.matcher(text).matches()) {
            return Parsed.malformed("amount at " + mapping.amount() + " is '" + text + "', not a number");
        }
        BigDecimal exact;
        try {
            exact = new BigDecimal(text).movePointRight(mapping.amountScale());
        } catch (NumberFormatException | ArithmeticException e) {
            return Parsed.malformed("amount at " + mapping.amount() + " is '" + text + "', not an exact number");
        }
        if (exact.signum() != 0 && exact.precision() - exact.scale() > 19) { // 1e999999999 would take a billion digits to write out
            return Parsed.malformed("amount " + text + " at " + mapping.amount() + " is beyond a 64-bit integer");
        }
        try {
            return Parsed.of(idText, exact.stripTrailingZeros().toBigIntegerExact().longValueExact());
        } catch (ArithmeticException e) {
            if (exact.stripTrailingZeros().scale() > 0) {
                return Parsed.malformed("amount " + text + " at " + mapping.amount() + " has more decimal digits than the amount scale "
                        + mapping.amountScale() + (mapping.amountScale() == 0 ? " (amounts are exact integers unless a scale is given)" : ""));
            }
            return Parsed.malformed("amount " + text + " at " + mapping.amount() + " is beyond a 64-bit integer");
        }
    }

    private static Leaf leaf(SourceMapping.Field field, int index, Leaf[] found, byte[] key, Headers headers) {
        if (field instanceof SourceMapping.Field.Json) {
            return found[index];
        }
        if (field instanceof SourceMapping.Field.Header h) {
            byte[] v = headers.lastValue(h.name());
            return v == null ? null : new Leaf(null, new String(v, StandardCharsets.UTF_8));
        }
        return key == null ? null : new Leaf(null, new String(key, StandardCharsets.UTF_8)); // Field.Key: the only other kind
    }

    /** The identity's text: a string as it is, a number in its canonical decimal form (1.50e1 and 15 are both "15"). */
    private static String identity(Leaf id) {
        if (id.token == null || id.token == JsonToken.VALUE_STRING) {
            return id.text;
        }
        if (id.token == JsonToken.VALUE_NUMBER_INT) {
            return new BigInteger(id.text).toString();
        }
        if (id.token == JsonToken.VALUE_NUMBER_FLOAT) {
            BigDecimal d = new BigDecimal(id.text).stripTrailingZeros();
            // an identity is a key, not a quantity: one of more than 100 digits (1e999999999) is no identity of any producer
            return Math.abs((long) d.precision() - d.scale()) > 100 || d.scale() > 100 ? null : d.toPlainString();
        }
        return null;
    }

    /**
     * The parser is on a value's first token; {@code tails[i]} is what is left of pointer i below this
     * value (null once it left the path). Leaves the parser on the value's last token.
     */
    private static void walk(JsonParser p, JsonPointer[] tails, Leaf[] found) throws IOException {
        JsonToken t = p.currentToken();
        boolean any = false;
        for (int i = 0; i < tails.length; i++) {
            if (tails[i] != null && tails[i].matches()) {
                found[i] = new Leaf(t, t.isScalarValue() ? p.getText() : null);
                tails[i] = null;
            }
            any |= tails[i] != null;
        }
        if (!any || !(t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY)) {
            p.skipChildren();
            return;
        }
        if (t == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                member(p, tails, found, x -> x.matchesProperty(name)); // a later member of the same name wins, as in the reference reader
            }
        } else {
            for (int index = 0; p.nextToken() != JsonToken.END_ARRAY; index++) {
                int i = index;
                member(p, tails, found, x -> x.matchesElement(i));
            }
        }
    }

    /** One member or element: walked into with the tails that lead through it, skipped when none does. */
    private static void member(JsonParser p, JsonPointer[] tails, Leaf[] found, java.util.function.Predicate<JsonPointer> leadsHere) throws IOException {
        JsonPointer[] next = new JsonPointer[tails.length];
        boolean on = false;
        for (int i = 0; i < tails.length; i++) {
            if (tails[i] != null && leadsHere.test(tails[i])) {
                next[i] = tails[i].tail();
                on = true;
            }
        }
        if (on) {
            walk(p, next, found);
        } else {
            p.skipChildren();
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** A value found at a pointer (its JSON token), or a key's or header's text (token null). */
    private record Leaf(JsonToken token, String text) {
        String describe() {
            return switch (token) {
                case START_OBJECT -> "an object";
                case START_ARRAY -> "an array";
                case VALUE_TRUE, VALUE_FALSE -> "a boolean";
                case VALUE_NULL -> "null";
                default -> String.valueOf(text);
            };
        }
    }

    @Override
    public String toString() {
        return "mapped(" + mapping + ")";
    }
}
