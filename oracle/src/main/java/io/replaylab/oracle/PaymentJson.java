package io.replaylab.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * The reference payload parser. Two readers, one meaning: {@link #jackson} is the definition;
 * {@link #flat} reads the common flat, ASCII, escape-free shape straight from the bytes (creating a
 * Jackson parser per record cost more than the drain's own decoding) and hands every other input
 * to Jackson. A differential test holds the two to the same answers.
 */
final class PaymentJson implements RecordParser {
    static final PaymentJson INSTANCE = new PaymentJson();
    private static final JsonFactory JSON = new JsonFactory();
    /** Up to 18 digits always fit in a long; longer integers go to Jackson for the range check. */
    private static final int SAFE_DIGITS = 18;

    private PaymentJson() {
    }

    @Override
    public Parsed parse(byte[] key, byte[] value, Headers headers) {
        if (value == null) {
            return Parsed.malformed("null value");
        }
        Parsed p = flat(value);
        return p != null ? p : jackson(value);
    }

    /** The outcome from the fields found, shared by both readers. */
    private static Parsed verdict(String id, Long amount, String badAmount) {
        if (id == null || id.isBlank()) {
            return Parsed.malformed("missing id");
        }
        if (amount == null) {
            return Parsed.malformed("non-integer amount: " + badAmount);
        }
        return Parsed.of(id, amount);
    }

    /** The definition: a streaming Jackson read; later fields of the same name win. */
    static Parsed jackson(byte[] value) {
        String id = null;
        Long amount = null;
        String badAmount = null;
        try (JsonParser p = JSON.createParser(value)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Parsed.malformed("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                if ("id".equals(field) && t == JsonToken.VALUE_STRING) {
                    id = p.getText();
                } else if ("amount".equals(field)) {
                    if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                        amount = p.getLongValue();
                        badAmount = null;
                    } else {
                        amount = null;
                        badAmount = p.getText();
                    }
                } else {
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            return Parsed.malformed("not JSON");
        }
        return verdict(id, amount, badAmount);
    }

    /**
     * The fast reader: an object whose values are ASCII strings without escapes or integers of at
     * most 18 digits, nothing after it but whitespace. Returns null for anything else.
     */
    static Parsed flat(byte[] b) {
        int n = b.length;
        int i = skipWs(b, 0);
        if (i >= n || b[i] != '{') {
            return null;
        }
        i = skipWs(b, i + 1);
        String id = null;
        Long amount = null;
        String badAmount = null;
        if (i < n && b[i] == '}') {
            i++;
        } else {
            while (true) {
                if (i >= n || b[i] != '"') {
                    return null;
                }
                int nameStart = i + 1;
                int nameEnd = stringEnd(b, nameStart);
                if (nameEnd < 0) {
                    return null;
                }
                i = skipWs(b, nameEnd + 1);
                if (i >= n || b[i] != ':') {
                    return null;
                }
                i = skipWs(b, i + 1);
                if (i >= n) {
                    return null;
                }
                boolean isId = is(b, nameStart, nameEnd, "id");
                boolean isAmount = !isId && is(b, nameStart, nameEnd, "amount");
                if (b[i] == '"') {
                    int end = stringEnd(b, i + 1);
                    if (end < 0) {
                        return null;
                    }
                    if (isId) {
                        id = new String(b, i + 1, end - i - 1, StandardCharsets.US_ASCII);
                    } else if (isAmount) {
                        amount = null;
                        badAmount = new String(b, i + 1, end - i - 1, StandardCharsets.US_ASCII);
                    }
                    i = end + 1;
                } else {
                    boolean negative = b[i] == '-';
                    if (negative) {
                        i++;
                    }
                    int digits = i;
                    long v = 0;
                    while (i < n && b[i] >= '0' && b[i] <= '9') {
                        v = v * 10 + (b[i] - '0');
                        i++;
                    }
                    int count = i - digits;
                    if (count == 0 || count > SAFE_DIGITS || (count > 1 && b[digits] == '0')) {
                        return null; // a literal, a leading zero, a long number: Jackson's call (a fraction fails at the separator below)
                    }
                    if (isAmount) {
                        amount = negative ? -v : v;
                        badAmount = null;
                    } // an integer id is ignored, as Jackson's reader ignores it
                }
                i = skipWs(b, i);
                if (i < n && b[i] == ',') {
                    i = skipWs(b, i + 1);
                    continue;
                }
                if (i < n && b[i] == '}') {
                    i++;
                    break;
                }
                return null;
            }
        }
        if (skipWs(b, i) != n) {
            return null;
        }
        return verdict(id, amount, badAmount);
    }

    /** The index of the closing quote of a plain string starting at {@code i}, or -1 if it is not plain. */
    private static int stringEnd(byte[] b, int i) {
        for (; i < b.length; i++) {
            byte c = b[i];
            if (c == '"') {
                return i;
            }
            if (c == '\\' || c < 0x20) { // an escape, a control character or (signed) a non-ASCII byte
                return -1;
            }
        }
        return -1;
    }

    private static int skipWs(byte[] b, int i) {
        while (i < b.length && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) {
            i++;
        }
        return i;
    }

    private static boolean is(byte[] b, int from, int to, String ascii) {
        if (to - from != ascii.length()) {
            return false;
        }
        for (int k = 0; k < ascii.length(); k++) {
            if (b[from + k] != ascii.charAt(k)) {
                return false;
            }
        }
        return true;
    }
}
