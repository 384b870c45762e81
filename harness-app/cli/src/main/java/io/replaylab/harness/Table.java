package io.replaylab.harness;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A left-aligned text table, as Kafka's tools print them. */
final class Table {
    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    Table row(Object... cells) {
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            r[i] = cells[i] == null ? "-" : String.valueOf(cells[i]);
        }
        rows.add(r);
        return this;
    }

    void print(PrintWriter out) {
        int cols = rows.get(0).length;
        int[] w = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < cols && i < r.length; i++) {
                w[i] = Math.max(w[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                b.append(i == r.length - 1 ? r[i] : String.format("%-" + (w[i] + 2) + "s", r[i]));
            }
            out.println(b.toString().stripTrailing());
        }
    }
}
