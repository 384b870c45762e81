package io.replaylab.barrier.pg;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The protocol's words the proxy writes itself: an ErrorResponse for an injected SQLSTATE, and a Bind's parameters as text. */
final class PgErrors {
    /** What the server itself says for the SQLSTATEs a fault injects most. */
    private static final Map<String, String> MESSAGES = Map.of(
            "40001", "could not serialize access due to read/write dependencies among transactions",
            "40P01", "deadlock detected",
            "57P01", "terminating connection due to administrator command",
            "57P02", "terminating connection due to crash of another server process",
            "08006", "connection failure");

    private PgErrors() {
    }

    /** The server's own words for {@code sqlState}, marked as injected. */
    static String message(String sqlState) {
        return MESSAGES.getOrDefault(sqlState, "an error with SQLSTATE " + sqlState) + " (injected by replay-lab's PostgreSQL proxy)";
    }

    /** An ErrorResponse's body: severity, SQLSTATE and message fields. */
    static byte[] response(String severity, String sqlState) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        field(out, 'S', severity);
        field(out, 'V', severity);
        field(out, 'C', sqlState);
        field(out, 'M', message(sqlState));
        out.write(0);
        return out.toByteArray();
    }

    private static void field(ByteArrayOutputStream out, char code, String value) {
        out.write(code);
        out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    /**
     * A Bind message's parameters as the witness shows them, {@code $1=value $2=value}: text as text, a binary value as its
     * length, NULL as NULL; each cut at {@code max} characters. Empty when it has none or cannot be read.
     */
    static String parameters(byte[] bind, int max) {
        try {
            ByteBuffer b = ByteBuffer.wrap(bind);
            skipCString(b); // portal
            skipCString(b); // statement
            int formats = b.getShort();
            short[] format = new short[formats];
            for (int i = 0; i < formats; i++) {
                format[i] = b.getShort();
            }
            int count = b.getShort();
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < count; i++) {
                int length = b.getInt();
                boolean binary = formats == 1 ? format[0] == 1 : formats > i && format[i] == 1;
                String value;
                if (length < 0) {
                    value = "NULL";
                } else {
                    byte[] v = new byte[length];
                    b.get(v);
                    value = binary ? "<" + length + " bytes>" : new String(v, StandardCharsets.UTF_8);
                }
                if (value.length() > max) {
                    value = value.substring(0, max);
                }
                s.append(i == 0 ? "" : " ").append('$').append(i + 1).append('=').append(value);
            }
            return s.toString();
        } catch (RuntimeException malformed) {
            return "";
        }
    }

    private static void skipCString(ByteBuffer b) {
        while (b.get() != 0) {
            // to the terminator
        }
    }
}
