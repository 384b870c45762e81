package io.replaylab.barrier.gdb;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of gdb's machine interface (MI3): its kind ({@code ^} result, {@code *} exec,
 * {@code =} notify, {@code ~ @ &} stream), its token, its class ({@code done}, {@code stopped},
 * ...) and its results: values are strings, lists or maps, as MI writes them.
 */
record Mi(char kind, Integer token, String klass, Map<String, Object> results, String text) {

    /** Parses one output line; null for the prompt and blank lines. */
    static Mi parse(String line) {
        if (line.isEmpty() || line.startsWith("(gdb)")) {
            return null;
        }
        int i = 0;
        while (i < line.length() && Character.isDigit(line.charAt(i))) {
            i++;
        }
        Integer token = i > 0 ? Integer.valueOf(line.substring(0, i)) : null;
        if (i >= line.length()) {
            return null;
        }
        char kind = line.charAt(i);
        if (kind == '~' || kind == '@' || kind == '&') {
            Cursor c = new Cursor(line, i + 1);
            return new Mi(kind, token, "", Map.of(), c.peek() == '"' ? c.cstring() : line.substring(i + 1));
        }
        if (kind != '^' && kind != '*' && kind != '=' && kind != '+') {
            return new Mi('?', token, "", Map.of(), line); // the program's or gdb's own text
        }
        Cursor c = new Cursor(line, i + 1);
        String klass = c.name();
        Map<String, Object> results = new LinkedHashMap<>();
        while (c.peek() == ',') {
            c.next();
            String name = c.name();
            c.expect('=');
            results.put(name, c.value());
        }
        return new Mi(kind, token, klass, results, line);
    }

    String string(String name) {
        Object v = results.get(name);
        return v instanceof String s ? s : null;
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> map(String name) {
        Object v = results.get(name);
        return v instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object v) {
        return v instanceof List<?> l ? (List<Object>) l : List.of();
    }

    private static final class Cursor {
        private final String s;
        private int at;

        Cursor(String s, int at) {
            this.s = s;
            this.at = at;
        }

        char peek() {
            return at < s.length() ? s.charAt(at) : '\0';
        }

        char next() {
            return s.charAt(at++);
        }

        void expect(char c) {
            if (peek() != c) {
                throw new IllegalArgumentException("MI: expected '" + c + "' at " + at + " in " + s);
            }
            at++;
        }

        String name() {
            int start = at;
            while (at < s.length() && "=,{}[]\"".indexOf(s.charAt(at)) < 0) {
                at++;
            }
            return s.substring(start, at);
        }

        Object value() {
            char c = peek();
            if (c == '"') {
                return cstring();
            }
            if (c == '{') {
                next();
                Map<String, Object> m = new LinkedHashMap<>();
                while (peek() != '}') {
                    String n = name();
                    expect('=');
                    m.put(n, value());
                    if (peek() == ',') {
                        next();
                    }
                }
                next();
                return m;
            }
            if (c == '[') {
                next();
                List<Object> l = new ArrayList<>();
                while (peek() != ']') {
                    if (peek() == '"' || peek() == '{' || peek() == '[') {
                        l.add(value());
                    } else { // a result (name=value) inside a list: keep the value
                        name();
                        expect('=');
                        l.add(value());
                    }
                    if (peek() == ',') {
                        next();
                    }
                }
                next();
                return l;
            }
            throw new IllegalArgumentException("MI: unexpected '" + c + "' at " + at + " in " + s);
        }

        String cstring() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (peek() != '"') {
                char c = next();
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = next();
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case '0', '1', '2', '3' -> { // octal, e.g. \033
                        int v = e - '0';
                        for (int k = 0; k < 2 && peek() >= '0' && peek() <= '7'; k++) {
                            v = v * 8 + (next() - '0');
                        }
                        b.append((char) v);
                    }
                    default -> b.append(e);
                }
            }
            next();
            return b.toString();
        }
    }
}
